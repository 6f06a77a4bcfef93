// autocannon ships no types; the benchmarks use only this much of it.
declare module 'autocannon' {
  interface Result {
    requests: { average: number };
    latency: { p50: number; p99: number; p97_5: number; average: number };
    non2xx: number;
    errors: number;
  }
  function autocannon(options: { url: string; connections?: number; duration?: number; headers?: Record<string, string> }): Promise<Result>;
  export default autocannon;
}
