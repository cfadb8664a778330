// A minimal WebSocket server endpoint (RFC 6455) for the mock server: binary
// messages, close and ping. Enough for tests; no extensions.
import { createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export function accept(req, socket, onOpen) {
  const key = req.headers['sec-websocket-key'];
  if (!key || (req.headers.upgrade || '').toLowerCase() !== 'websocket') {
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  const acceptKey = createHash('sha1').update(key + GUID).digest('base64');
  // As the real server: the stream speaks `panecast`; a credential offered
  // as `panecast.token.T` is never echoed back.
  const offered = (req.headers['sec-websocket-protocol'] || '').split(',').map((p) => p.trim());
  const protocol = offered.includes('panecast') ? 'Sec-WebSocket-Protocol: panecast\r\n' : '';
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey}\r\n${protocol}\r\n`);
  socket.setNoDelay(true);
  const ws = new Socket(socket);
  onOpen(ws);
}

class Socket {
  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.parts = [];
    this.onmessage = () => {};
    this.onclose = () => {};
    this.closed = false;
    socket.on('data', (d) => this.data(d));
    socket.on('close', () => this.gone(1006));
    socket.on('error', () => this.gone(1006));
  }

  gone(code) {
    if (this.closed) return;
    this.closed = true;
    this.onclose(code);
  }

  data(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      const fin = b[0] & 0x80, op = b[0] & 0x0f, masked = b[1] & 0x80;
      let len = b[1] & 0x7f, p = 2;
      if (len === 126) { if (b.length < 4) return; len = b.readUInt16BE(2); p = 4; }
      else if (len === 127) { if (b.length < 10) return; len = Number(b.readBigUInt64BE(2)); p = 10; }
      const mask = masked ? b.subarray(p, p + 4) : null;
      if (masked) p += 4;
      if (b.length < p + len) return;
      const payload = Buffer.from(b.subarray(p, p + len));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      this.buf = b.subarray(p + len);
      if (op === 8) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        if (!this.closed) this.frame(8, payload.subarray(0, 2));
        this.socket.end();
        this.gone(code);
        return;
      }
      if (op === 9) { this.frame(10, payload); continue; }
      if (op === 10) continue;
      if (op === 1) { this.close(1003, 'text message'); return; }
      this.parts.push(payload);
      if (fin) {
        const msg = Buffer.concat(this.parts);
        this.parts = [];
        this.onmessage(msg);
      }
    }
  }

  frame(op, payload) {
    if (this.socket.destroyed) return;
    const n = payload.length;
    const head = n < 126 ? Buffer.from([0x80 | op, n])
      : n < 65536 ? Buffer.from([0x80 | op, 126, n >> 8, n & 255])
        : Buffer.concat([Buffer.from([0x80 | op, 127]), (() => { const x = Buffer.alloc(8); x.writeBigUInt64BE(BigInt(n)); return x; })()]);
    this.socket.write(Buffer.concat([head, payload]));
  }

  send(bytes) { if (!this.closed) this.frame(2, Buffer.from(bytes)); }

  close(code = 1000, reason = '') {
    if (this.closed) return;
    const p = Buffer.alloc(2 + Buffer.byteLength(reason));
    p.writeUInt16BE(code, 0);
    p.write(reason, 2);
    this.frame(8, p);
    this.socket.end();
    this.gone(code);
  }

  /** Drops the TCP connection without a close frame (the client sees 1006). */
  destroy() {
    this.socket.destroy();
    this.gone(1006);
  }
}
