/**
 * Evaluated before anything else in the test Worker's bundle. The engine's
 * `@xmd/core` import brings the secret gate along, and `@secretlint/profiler`
 * reads the global `PerformanceObserver` when it loads, which workerd does not
 * define. The profiler is never enabled, so an observer that observes nothing
 * is enough.
 *
 * @module
 */
const scope = globalThis as { PerformanceObserver?: unknown };
scope.PerformanceObserver ??= class {
  observe(): void {}
  disconnect(): void {}
};
