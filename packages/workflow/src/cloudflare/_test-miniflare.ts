/**
 * Test support: miniflare (real workerd), a test-only dependency. It is kept
 * out of the packages' import maps and out of `deno.lock`, so running a
 * document never installs workerd; `dev.lock` (the tests' and the bench's
 * lock) holds it.
 *
 * @module
 */
export { Miniflare } from "npm:miniflare@^4.20260730.0";
