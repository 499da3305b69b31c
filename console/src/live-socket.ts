// One of the service's WebSocket streams (events or positions), kept open: it authenticates with the current
// access token, subscribes with the last resume handle it received, and reconnects with backoff 1, 2, 4 ...
// 30 s, so nothing is lost or repeated across a disconnect (docs/events-and-delivery.md "Live event stream").
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = Record<string, any>;

export interface LiveSocketOptions {
  url: string;
  token: () => Promise<string>;
  filters: () => Record<string, unknown>;
  onMessage: (m: Message) => void;
  onState: (state: 'connecting' | 'live' | 'reconnecting' | 'refused', detail?: string) => void;
}

export class LiveSocket {
  #ws: WebSocket | undefined;
  #resume: string | undefined;
  #delay = 1000;
  #stopped = false;
  #timer: number | undefined;

  constructor(private readonly opts: LiveSocketOptions) {}

  start(): void {
    this.#stopped = false;
    void this.#connect();
  }

  /** Drops the connection as a network failure would (the console's "reconnect" test uses it too). */
  drop(): void {
    this.#ws?.close();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#ws?.close();
  }

  updateFilters(): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify({ type: 'update_filters', filters: this.opts.filters() }));
  }

  async #connect(): Promise<void> {
    this.opts.onState(this.#resume ? 'reconnecting' : 'connecting');
    let token: string;
    try {
      token = await this.opts.token();
    } catch (err) {
      return this.opts.onState('refused', (err as Error).message);
    }
    const ws = new WebSocket(this.opts.url);
    this.#ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: 'auth', token }));
      ws.send(JSON.stringify({ type: 'subscribe', filters: this.opts.filters(), ...(this.#resume ? { resume: this.#resume } : {}) }));
    };
    ws.onmessage = (e) => {
      let m: Message;
      try {
        m = JSON.parse(String(e.data)) as Message;
      } catch {
        return;
      }
      if (typeof m.resume === 'string') this.#resume = m.resume;
      if (m.type === 'subscribed') {
        this.#delay = 1000;
        this.opts.onState('live');
      }
      if (m.type === 'error' && m.code === 'invalid_resume') {
        // A handle the service no longer takes: start afresh rather than stay silent.
        this.#resume = undefined;
        ws.send(JSON.stringify({ type: 'subscribe', filters: this.opts.filters() }));
        return;
      }
      this.opts.onMessage(m);
    };
    ws.onclose = (e) => {
      if (this.#ws !== ws) return;
      this.#resume = / resume=(\S+)$/.exec(e.reason)?.[1] ?? this.#resume;
      if (this.#stopped) return;
      if (e.code === 4403) return this.opts.onState('refused', 'Your account may not use this stream.');
      this.opts.onState('reconnecting');
      this.#timer = window.setTimeout(() => void this.#connect(), this.#delay);
      this.#delay = Math.min(this.#delay * 2, 30_000);
    };
  }
}
