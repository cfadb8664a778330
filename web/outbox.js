// Numbered input that survives a dropped link (PROTOCOL.md, "Sync"; notes:
// web/README.md, "Prediction and a link that drops"). The page names itself (`client`)
// and numbers its input messages; each is kept until a Sync says the
// program has had it. While the link is down, what is typed is held, up to
// a bound, and sent once on the next connection, which starts its
// numbering (`input`) at the first message held: the server applies each
// number once, so nothing is typed twice, and nothing is lost unless the
// bound is reached (then it is dropped, and the page says so).

/** The most input messages held (sent and not yet acknowledged, or waiting for the link). */
export const HELD_MESSAGES = 1000;
/** The most bytes of them held. */
export const HELD_BYTES = 1 << 20;

/** A new client id: 32 hex digits from the browser's random source. */
export function clientId(random = (a) => crypto.getRandomValues(a)) {
  return [...random(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class Outbox {
  /** `send(bytes)` puts a message on the open connection. */
  constructor(send, id = clientId()) {
    this.send = send;
    this.client = id;
    this.next = 1;
    this.held = []; // {seq, bytes}, oldest first
    this.heldBytes = 0;
    this.open = false;
    this.dropped = 0; // messages typed while down that did not fit
    this.sent = 0; // the number of the last message put on a connection
  }

  /** Sends `bytes` as the next input (or holds it while the link is down);
   *  its number, or null when it was dropped. */
  push(bytes) {
    const full = this.held.length >= HELD_MESSAGES || this.heldBytes + bytes.length > HELD_BYTES;
    if (full && !this.open) {
      this.dropped++;
      return null;
    }
    // On an open link the oldest sent ones make room: the server has them
    // unless this very connection drops before they arrive.
    while (this.held.length && (this.held.length >= HELD_MESSAGES || this.heldBytes + bytes.length > HELD_BYTES)) this.forget();
    const seq = this.next++;
    this.held.push({ seq, bytes });
    this.heldBytes += bytes.length;
    if (this.open) {
      this.send(bytes);
      this.sent = seq;
    }
    return seq;
  }

  forget() {
    this.heldBytes -= this.held.shift().bytes.length;
  }

  /** The program has had every input up to `input`. */
  acked(input) {
    while (this.held.length && this.held[0].seq <= input) this.forget();
  }

  /** The next connection's query parameters: who this is and the number of the first message it sends. */
  params() {
    return { client: this.client, input: String(this.held.length ? this.held[0].seq : this.next) };
  }

  /** A connection that may type is up: what was held goes, in order, before anything new. */
  opened() {
    this.open = true;
    for (const m of this.held) {
      this.send(m.bytes);
      this.sent = m.seq;
    }
  }

  /** The link is down: what is typed is held. */
  closed() { this.open = false; }

  /** A connection that cannot type: what was held is dropped (its numbers
   *  are never used again); how many. */
  discard() {
    const n = this.held.length;
    this.held = [];
    this.heldBytes = 0;
    return n;
  }
}
