"""HTTP/2 connections (TLS, ALPN "h2"), as kube-apiserver serves them: many
requests and watches multiplexed on one connection, a watch cancelled by the
client's RST_STREAM while the connection goes on serving.

One thread per connection owns the socket and the h2 state machine (an
SSLSocket may not be read and written from two threads at once); each
stream's request runs on a thread of its own through the HTTP/1.1 Handler
(server.py), whose output methods (_emit, _start_stream, _chunk, _chunks)
H2Handler turns into HEADERS and DATA, queued to the connection's thread,
which sends them as the peer's flow-control windows allow.

The h2 library (Debian: python3-h2; pure Python) is found in the running
Python's path or else in Debian's dist-packages (a pyenv python3 first on
PATH does not look there); load() says what is missing when it is not."""
import io
import os
import queue
import select
import socket
import ssl
import sys
import threading
import time

from .headers import Headers

h2 = hpack = None  # the h2 and hpack packages once load() found them
_DIST = ("/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages")

MAX_STREAMS = 250            # SETTINGS_MAX_CONCURRENT_STREAMS (Go's http2 server default)
WINDOW = 1 << 20             # the window this side opens per stream and per connection for request bodies
PENDING_MAX = 1 << 20        # a stream's bytes queued to send before its thread waits for the peer


def load():
    """Import h2 (and hpack, hyperframe); None when done, else what failed."""
    global h2
    if h2 is not None:
        return None
    try:
        import h2.config  # noqa: F401
    except ImportError:
        for d in _DIST:
            if os.path.isdir(os.path.join(d, "h2")) and d not in sys.path:
                sys.path.append(d)
        try:
            import h2.config  # noqa: F401
        except ImportError as e:
            return ("kubesim: HTTP/2 needs the Python h2 package (apt-get install python3-h2), not found by %s "
                    "nor in %s: %s; --http1 serves HTTP/1.1 only" % (sys.executable, ", ".join(_DIST), e))
    import h2.connection
    import h2.events
    import h2.exceptions
    import h2.settings
    import h2.errors
    import hpack.exceptions
    import hpack.hpack
    import hpack.table
    hpack.hpack.log = _NoLog()  # a logging call per header field, though nothing is logged
    global _huffman, _STATIC
    _huffman = _huffman_memo(hpack.hpack.decode_huffman)
    _STATIC = (None,) + hpack.table.HeaderTable.STATIC_TABLE
    globals()["h2"] = sys.modules["h2"]
    globals()["hpack"] = sys.modules["hpack"]
    return None


def _huffman_memo(decode):
    """hpack's Huffman decoder (a Python loop per 4 bits) remembering what it
    decoded: clients Huffman-code the fields they do not index (a request's
    path, often the same again) and decoding was a third of a request's framing."""
    memo = {}

    def decode_huffman(b):
        s = memo.get(b)
        if s is None:
            s = decode(b)
            if len(memo) >= 4096:
                memo.clear()
            memo[b] = s
        return s
    return decode_huffman


_huffman = _STATIC = None


def _hpack_int_at(data, i, prefix_bits):
    """RFC 7541 5.1: (the integer at data[i] with an N-bit prefix, the index after it)."""
    top = (1 << prefix_bits) - 1
    n = data[i] & top
    i += 1
    if n < top:
        return n, i
    shift = 0
    while True:
        b = data[i]
        i += 1
        n += (b & 127) << shift
        if b < 128:
            return n, i
        shift += 7
        if shift > 28:
            raise ValueError("integer too long")


class _Decoder:
    """HPACK decoder (RFC 7541) for requests, in place of hpack's Decoder,
    which was most of a request's framing (a few calls and a logging call per
    field): the same results, limits and errors (hpack's exceptions, which h2
    turns into a connection error)."""

    def __init__(self):
        self.table = []          # the dynamic table, newest first: (name, value)
        self.size = 0            # its size, RFC 7541 4.1
        self.max_size = 4096     # set by the peer's size updates
        self.max_allowed_table_size = 4096  # our SETTINGS_HEADER_TABLE_SIZE
        self.max_header_list_size = 1 << 16

    @property
    def header_table_size(self):
        return self.max_size

    @header_table_size.setter
    def header_table_size(self, n):
        self.max_size = n
        self._evict()

    def _evict(self):
        t = self.table
        while self.size > self.max_size and t:
            k, v = t.pop()
            self.size -= 32 + len(k) + len(v)

    def _entry(self, i):
        if 0 < i < len(_STATIC):
            return _STATIC[i]
        j = i - len(_STATIC)
        if 0 <= j < len(self.table):
            return self.table[j]
        raise hpack.exceptions.InvalidTableIndex("invalid table index %d" % i)

    def _string(self, data, i):
        huff = data[i] & 0x80
        n, i = _hpack_int_at(data, i, 7)
        s = bytes(data[i:i + n])
        if len(s) != n:
            raise hpack.exceptions.HPACKDecodingError("Truncated header block")
        return (_huffman(s) if huff else s), i + n

    def decode(self, data, raw=True):
        try:
            return self._decode(data)
        except (IndexError, ValueError) as e:
            raise hpack.exceptions.HPACKDecodingError("bad header block: %s" % e)

    def _decode(self, data):
        out = []
        i, end, total = 0, len(data), 0
        while i < end:
            b = data[i]
            if b & 0x80:  # indexed field
                n, i = _hpack_int_at(data, i, 7)
                if n == 0:
                    raise hpack.exceptions.HPACKDecodingError("index 0")
                f = self._entry(n)
            elif b & 0x40 or not b & 0x20:  # a literal, added to the table (6-bit name index) or not (4-bit)
                index = b & 0x40
                n, i = _hpack_int_at(data, i, 6 if index else 4)
                if n:
                    name = self._entry(n)[0]
                else:
                    name, i = self._string(data, i)
                value, i = self._string(data, i)
                f = (name, value)
                if index:
                    self.table.insert(0, f)
                    self.size += 32 + len(name) + len(value)
                    self._evict()
            else:  # dynamic table size update
                if out:
                    raise hpack.exceptions.HPACKDecodingError("Table size update not at the start of the block")
                n, i = _hpack_int_at(data, i, 5)
                if n > self.max_allowed_table_size:
                    raise hpack.exceptions.InvalidTableSizeError("Encoder exceeded max allowable table size")
                self.header_table_size = n
                continue
            out.append(f)
            total += 32 + len(f[0]) + len(f[1])
            if total > self.max_header_list_size:
                raise hpack.exceptions.OversizedHeaderListError(
                    "A header list larger than %d has been received" % self.max_header_list_size)
        if self.max_size > self.max_allowed_table_size:
            raise hpack.exceptions.InvalidTableSizeError("Encoder did not shrink table size to within the max")
        return out


class _NoLog:
    def debug(self, *args, **kwargs):
        pass


def _hpack_int(n, prefix_bits, first):
    """RFC 7541 5.1: n with an N-bit prefix, the first byte's high bits first."""
    top = (1 << prefix_bits) - 1
    if n < top:
        return bytes((first | n,))
    out = bytearray((first | top,))
    n -= top
    while n >= 128:
        out.append((n & 127) | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


class _Encoder:
    """HPACK for responses: each field a literal never added to the dynamic
    table, without Huffman coding (RFC 7541 6.2.2), which any decoder reads;
    hpack's Encoder, which indexes and Huffman-codes every field, cost more
    than the rest of a response's framing (the Date and Audit-Id of each
    response differ anyway)."""

    def __init__(self):
        self._size = 4096
        self._update = None

    @property
    def header_table_size(self):
        return self._size

    @header_table_size.setter
    def header_table_size(self, n):  # the peer's SETTINGS_HEADER_TABLE_SIZE: said in the next block
        self._size = n
        self._update = n

    def encode(self, headers, huffman=True):
        out = []
        if self._update is not None:
            out.append(_hpack_int(self._update, 5, 0x20))
            self._update = None
        for k, v in headers:
            if k == b":status":
                out.append(b"\x08")  # literal, name :status from the static table (index 8)
            else:
                out.append(b"\x00" + _hpack_int(len(k), 7, 0) + k)
            out.append(_hpack_int(len(v), 7, 0) + v)
        return b"".join(out)


class Stats:
    """Connections accepted, by protocol, and HTTP/2 streams: served, and
    being served now (GET /_kubesim/stats)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.c = {"tls_http1": 0, "tls_h2": 0, "plain_http1": 0, "tls_failed": 0,
                  "h2_streams": 0, "h2_streams_open": 0}
        self.agents = {}  # the User-Agent's product of a connection's first request -> {protocol: connections}

    def add(self, what, n=1):
        with self.lock:
            self.c[what] += n

    def agent(self, user_agent, proto):
        """A connection's first request came from user_agent ("bulkhead/0.1.0": bulkhead) over proto."""
        a = (user_agent or "").split("/")[0] or "unknown"
        with self.lock:
            d = self.agents.setdefault(a, {})
            d[proto] = d.get(proto, 0) + 1

    def snapshot(self):
        with self.lock:
            out = dict(self.c)
            out["by_agent"] = {a: dict(d) for a, d in self.agents.items()}
            return out


class _Pool:
    """Threads for the streams' requests, kept a while when idle: a new
    thread per request cost as much as framing it."""
    IDLE_SECS = 30.0

    def __init__(self):
        self.lock = threading.Lock()
        self.idle = []  # SimpleQueues of idle threads

    def run(self, fn, arg):
        with self.lock:
            q = self.idle.pop() if self.idle else None
        if q is None:
            q = queue.SimpleQueue()
            threading.Thread(target=self._thread, args=(q,), daemon=True).start()
        q.put((fn, arg))

    def _thread(self, q):
        while True:
            try:
                fn, arg = q.get(timeout=self.IDLE_SECS)
            except queue.Empty:
                with self.lock:
                    if q in self.idle:
                        self.idle.remove(q)
                        return
                continue  # taken for a job just now: it is in the queue
            fn(arg)
            with self.lock:
                self.idle.append(q)


_pool = _Pool()


class _Stream:
    __slots__ = ("sid", "headers", "body", "size", "pending", "end", "gone", "waiter", "started")

    def __init__(self, sid, headers):
        self.sid = sid
        self.headers = headers
        self.body = []
        self.size = 0          # request body bytes received (kept up to the handler's MAX_BODY + 1)
        self.pending = []      # DATA queued, not yet within the peer's window
        self.end = False       # END_STREAM queued after pending
        self.gone = False      # reset by the peer, or the connection ended
        self.waiter = None     # a watch's store waiter, woken when the stream goes
        self.started = False   # the handler thread runs


class Conn:
    """One HTTP/2 connection: serve() runs on the connection's thread until it closes."""

    def __init__(self, sock, client_address, server):
        self.sock = sock
        self.client_address = client_address
        self.server = server
        self.peercert = sock.getpeercert()
        # the checks of each header field cost more than kubesim's answer to a small request
        cfg = h2.config.H2Configuration(client_side=False, header_encoding=None,
                                        validate_outbound_headers=False, normalize_outbound_headers=False,
                                        validate_inbound_headers=False, normalize_inbound_headers=False)
        self.h2 = h2.connection.H2Connection(cfg)
        self.h2.encoder = _Encoder()
        dec = _Decoder()
        dec.max_header_list_size = self.h2.decoder.max_header_list_size
        self.h2.decoder = dec
        self.lock = threading.Condition()  # guards ops, streams' pending, wake_sent; stream threads wait on it
        self.ops = []                      # (fn, args) from stream threads, run by the connection thread
        self.streams = {}                  # only the connection thread adds and removes
        self.waiting = set()               # streams with DATA held back by a window
        self.agent_seen = False            # the first request's User-Agent counted (Stats.agent)
        self.wait_room_n = 0               # stream threads in wait_room()
        self.closed = False
        self.wake_r, self.wake_w = os.pipe()
        self.wake_sent = False

    # ---- called by stream threads ------------------------------------------------------------
    def post(self, fn, *args):
        with self.lock:
            if self.closed:
                return
            self.ops.append((fn, args))
            if not self.wake_sent:
                self.wake_sent = True
                os.write(self.wake_w, b"x")

    def wait_room(self, st):
        """Block a stream's thread while it has too much queued (the peer reads slowly)."""
        with self.lock:
            self.wait_room_n += 1
            try:
                while not st.gone and not self.closed and sum(len(b) for b in st.pending) > PENDING_MAX:
                    self.lock.wait(1.0)
            finally:
                self.wait_room_n -= 1

    # ---- the connection thread ---------------------------------------------------------------
    def serve(self):
        c = self.h2
        c.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: MAX_STREAMS,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: WINDOW})
        c.initiate_connection()
        c.increment_flow_control_window(WINDOW * 4)
        try:
            self._flush()
            self._loop()
        except (OSError, ssl.SSLError, socket.timeout):
            pass
        except h2.exceptions.ProtocolError:
            try:
                c.close_connection(h2.errors.ErrorCodes.PROTOCOL_ERROR)
                self._flush()
            except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
                pass
        finally:
            with self.lock:
                self.closed = True
                self.lock.notify_all()
            for st in list(self.streams.values()):
                self._gone(st)
            os.close(self.wake_r)
            os.close(self.wake_w)

    def _loop(self):
        sock = self.sock
        fd = sock.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        while True:
            if not sock.pending():
                r = [f for f, _ in poller.poll()]
            else:
                r = (fd,)
            if self.wake_r in r:
                with self.lock:
                    os.read(self.wake_r, 64)
                    self.wake_sent = False
            if fd in r:
                data = sock.recv(65536)
                if not data:
                    return
                if self._received(data):
                    self._flush()
                    return
            self._run_ops()
            self._flush()

    def _flush(self):
        out = self.h2.data_to_send()
        if out:
            self.sock.sendall(out)

    def _received(self, data):
        """Handle the frames in data; True when the peer ends the connection."""
        ev = h2.events
        for e in self.h2.receive_data(data):
            t = type(e)
            if t is ev.RequestReceived:
                self._request(e.stream_id, e.headers)
            elif t is ev.DataReceived:
                st = self.streams.get(e.stream_id)
                if st is not None:
                    st.size += len(e.data)
                    if st.size <= self.server.RequestHandlerClass.MAX_BODY + 1:
                        st.body.append(e.data)
                if e.flow_controlled_length:
                    self.h2.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
            elif t is ev.StreamEnded:
                st = self.streams.get(e.stream_id)
                if st is not None and not st.started:
                    self._start(st)
            elif t is ev.StreamReset:
                st = self.streams.pop(e.stream_id, None)
                if st is not None:
                    self._gone(st)
            elif t is ev.WindowUpdated or t is ev.RemoteSettingsChanged:
                if t is ev.WindowUpdated and e.stream_id:
                    st = self.streams.get(e.stream_id)
                    if st is not None:
                        self._pump(st)
                else:
                    for st in list(self.waiting):
                        self._pump(st)
            elif t is ev.ConnectionTerminated:
                return True
        return False

    def _request(self, sid, raw):
        items = []
        for k, v in raw:
            k = k.decode("latin-1")
            v = v.decode("latin-1")
            if k[0] == ":":
                if k == ":authority":
                    items.append(("Host", v))
                else:
                    items.append((k, v))  # :method, :path, :scheme: taken out by H2Handler
            else:
                items.append((k, v))
        self.streams[sid] = _Stream(sid, items)

    def _start(self, st):
        st.started = True
        stats = self.server.h2_stats
        stats.add("h2_streams")
        if not self.agent_seen:
            self.agent_seen = True
            stats.agent(next((v for k, v in st.headers if k == "user-agent"), ""), "h2")
        _pool.run(self._run_stream, st)

    def _run_stream(self, st):
        stats = self.server.h2_stats
        stats.add("h2_streams_open")
        try:
            self.server.h2_handler.run(self, st)
        finally:
            stats.add("h2_streams_open", -1)

    def _gone(self, st):
        with self.lock:
            st.gone = True
            st.pending = []
            self.waiting.discard(st)
            self.lock.notify_all()
        w = st.waiter
        if w is not None:
            store = self.server.RequestHandlerClass.sim.store
            with store.lock:
                w.cond.notify()

    def _run_ops(self):
        with self.lock:
            ops, self.ops = self.ops, []
        for fn, args in ops:
            fn(*args)

    # ops, run on the connection thread
    def op_headers(self, st, headers, end):
        if st.gone:
            return
        try:
            self.h2.send_headers(st.sid, headers, end_stream=end)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self._drop(st)
            return
        if end:
            self.streams.pop(st.sid, None)

    def op_answer(self, st, headers, data):
        """HEADERS, then data (END_STREAM after it)."""
        self.op_headers(st, headers, False)
        self.op_data(st, data, True)

    def op_data(self, st, data, end):
        with self.lock:
            if st.gone:
                return
            if data:
                st.pending.append(data)
            if end:
                st.end = True
        self._pump(st)

    def op_reset(self, st):
        if not st.gone:
            try:
                self.h2.reset_stream(st.sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                pass
        self._drop(st)

    def _drop(self, st):
        self.streams.pop(st.sid, None)
        self._gone(st)

    def _pump(self, st):
        """Send what st has queued, as far as the windows and frame size
        allow; END_STREAM on the last DATA frame (not a frame of its own)."""
        c = self.h2
        with self.lock:
            try:
                while st.pending:
                    room = min(c.local_flow_control_window(st.sid), c.max_outbound_frame_size)
                    if room <= 0:
                        break
                    b = st.pending[0]
                    if len(b) <= room:
                        st.pending.pop(0)
                    else:
                        st.pending[0] = b[room:]
                        b = b[:room]
                    last = st.end and not st.pending
                    c.send_data(st.sid, b, end_stream=last)
                    if last:
                        st.end = False
                        self.streams.pop(st.sid, None)
                if st.end and not st.pending:  # nothing was left to send
                    st.end = False
                    c.end_stream(st.sid)
                    self.streams.pop(st.sid, None)
                if st.pending:
                    self.waiting.add(st)
                else:
                    self.waiting.discard(st)
                if self.wait_room_n:
                    self.lock.notify_all()
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                st.pending = []
                st.gone = True
                self.streams.pop(st.sid, None)
                self.waiting.discard(st)
                self.lock.notify_all()


class H2Handler:
    """Mixed in before server.Handler: one HTTP/2 stream's request."""
    request_version = "HTTP/2.0"
    protocol_version = "HTTP/2.0"
    _agent_seen = True  # counted by the connection (Conn._start)

    @classmethod
    def run(cls, conn, st):
        self = cls.__new__(cls)
        self._h2 = conn
        self._st = st
        self.connection = self.request = conn.sock
        self.client_address = conn.client_address
        self.server = conn.server
        self.close_connection = True
        method, path, items = "GET", "/", []
        for k, v in st.headers:
            if k[0] == ":":
                if k == ":method":
                    method = v
                elif k == ":path":
                    path = v
            else:
                items.append((k, v))
        if st.size and not any(k == "content-length" for k, _ in items):
            items.append(("content-length", str(st.size)))
        self.headers = Headers(items)
        self.command = method
        self.path = path
        self.requestline = "%s %s HTTP/2.0" % (method, path)
        self.rfile = io.BytesIO(b"".join(st.body))
        st.body = None
        self._h2_ended = False  # END_STREAM sent (or queued)
        cpu = self.cpustats
        t0 = time.thread_time() if cpu else 0.0
        self._entry = None
        try:
            self._handle()
        finally:
            if not self._h2_ended:
                conn.post(conn.op_reset, st)  # hung, or failed before its answer ended
            if cpu:
                self._cpu_account(time.thread_time() - t0)

    def _peer_cert(self):
        return self._h2.peercert

    def _stream_gone(self):
        return self._st.gone

    def _watching(self, waiter):
        self._st.waiter = waiter
        if self._st.gone:  # reset before the waiter was known
            waiter.cond.notify()

    def _h2_fields(self, code, hdrs):
        if self._st.gone:
            raise ConnectionResetError("stream reset")
        out = [(b":status", b"%d" % code)]
        for k, v in hdrs:
            lk = k.lower()
            if lk in ("connection", "transfer-encoding", "server"):
                continue
            out.append((lk.encode("latin-1"), v.encode("latin-1")))
        return out

    def _h2_headers(self, code, hdrs, end):
        out = self._h2_fields(code, hdrs)
        self._h2_ended = end
        self._h2.post(self._h2.op_headers, self._st, out, end)

    def _h2_data(self, data, end):
        st = self._st
        if st.gone:
            raise ConnectionResetError("stream reset")
        if end:
            self._h2_ended = True
        self._h2.post(self._h2.op_data, st, data, end)
        if len(data) > PENDING_MAX // 2:
            self._h2.wait_room(st)

    # ---- server.Handler's output, in HTTP/2 -----------------------------------------------
    def _emit(self, code, hdrs, data):
        if self.command == "HEAD" or not data:
            self._h2_headers(code, hdrs, True)
            return
        out = self._h2_fields(code, hdrs)
        self._h2_ended = True
        self._h2.post(self._h2.op_answer, self._st, out, data)
        if len(data) > PENDING_MAX // 2:
            self._h2.wait_room(self._st)

    def _start_stream_head(self):
        self._h2_headers(200, [("Content-Type", "application/json"), ("Cache-Control", "no-cache, private"),
                               ("Audit-Id", self._audit_id), ("Date", self._date())], False)

    def _chunk(self, data):
        self._h2_data(data, not data)

    def _chunks(self, out):
        self._h2_data(b"".join(out), False)
