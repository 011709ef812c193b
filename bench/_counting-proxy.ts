/**
 * A loopback TCP proxy that counts the bytes each way, for the remote
 * benchmarks: a runner connects to it instead of workerd, so what a commit
 * or an acquisition put on the socket (HTTP upgrade, WebSocket frame headers,
 * masks and payloads) is counted as sent, not estimated from the frames.
 *
 * Invariant: bytes are forwarded unchanged and in order, each read written
 * whole before the next is read, with `TCP_NODELAY` on both legs so the
 * proxy adds no Nagle delay of its own.
 *
 * @module
 */

/** Bytes through the proxy since it started. */
export interface ByteCounts {
  /** Client to server (what the runner sent). */
  sent: number;
  /** Server to client (what the runner received). */
  received: number;
}

/** A running proxy in front of `target`. */
export class CountingProxy implements AsyncDisposable {
  readonly #listener: Deno.TcpListener;
  readonly #conns = new Set<Deno.Conn>();
  readonly #accepting: Promise<void>;
  /** The counts so far. */
  readonly counts: ByteCounts = { sent: 0, received: 0 };

  private constructor(listener: Deno.TcpListener, target: Deno.ConnectOptions) {
    this.#listener = listener;
    this.#accepting = this.#accept(target);
  }

  /** Listens on loopback and forwards to `target` (host and port of a `ws:` URL). */
  static start(target: URL): CountingProxy {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    return new CountingProxy(listener, { hostname: target.hostname, port: Number(target.port) });
  }

  /** `url` with its host replaced by the proxy's. */
  via(url: string | URL): string {
    const through = new URL(url);
    through.hostname = "127.0.0.1";
    through.port = String(this.#listener.addr.port);
    return through.href;
  }

  async #accept(target: Deno.ConnectOptions): Promise<void> {
    for await (const client of this.#listener) {
      client.setNoDelay(true);
      const server = await Deno.connect(target);
      server.setNoDelay(true);
      this.#conns.add(client).add(server);
      const pipe = async (from: Deno.Conn, to: Deno.Conn, count: "sent" | "received") => {
        const buffer = new Uint8Array(256 * 1024);
        try {
          for (;;) {
            const n = await from.read(buffer);
            if (n === null) break;
            this.counts[count] += n;
            let written = 0;
            while (written < n) written += await to.write(buffer.subarray(written, n));
          }
        } catch {
          // One side closed: end both.
        }
        for (const conn of [from, to]) {
          this.#conns.delete(conn);
          try {
            conn.close();
          } catch {
            // Already closed.
          }
        }
      };
      pipe(client, server, "sent");
      pipe(server, client, "received");
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#listener.close();
    for (const conn of this.#conns) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
    await this.#accepting.catch(() => {});
  }
}
