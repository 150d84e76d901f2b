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
import select
import socket
import ssl
import sys
import threading
import time

from .headers import Headers

h2 = None  # the h2 package once load() found it
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
    globals()["h2"] = sys.modules["h2"]
    return None


class Stats:
    """Connections accepted, by protocol, and HTTP/2 streams: served, and
    being served now (GET /_kubesim/stats)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.c = {"tls_http1": 0, "tls_h2": 0, "plain_http1": 0, "tls_failed": 0,
                  "h2_streams": 0, "h2_streams_open": 0}

    def add(self, what, n=1):
        with self.lock:
            self.c[what] += n

    def snapshot(self):
        with self.lock:
            return dict(self.c)


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
        cfg = h2.config.H2Configuration(client_side=False, header_encoding=None,
                                        validate_outbound_headers=False, normalize_outbound_headers=False)
        self.h2 = h2.connection.H2Connection(cfg)
        self.lock = threading.Condition()  # guards ops, streams' pending, wake_sent; stream threads wait on it
        self.ops = []                      # (fn, args) from stream threads, run by the connection thread
        self.streams = {}                  # only the connection thread adds and removes
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
            while not st.gone and not self.closed and sum(len(b) for b in st.pending) > PENDING_MAX:
                self.lock.wait(1.0)

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
                    for st in list(self.streams.values()):
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
        self.server.h2_stats.add("h2_streams")
        threading.Thread(target=self._run_stream, args=(st,), daemon=True).start()

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
        """Send what st has queued, as far as the windows and frame size allow."""
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
                    c.send_data(st.sid, b)
                if not st.pending and st.end:
                    st.end = False
                    c.end_stream(st.sid)
                    self.streams.pop(st.sid, None)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                st.pending = []
                st.gone = True
                self.streams.pop(st.sid, None)
            self.lock.notify_all()


class H2Handler:
    """Mixed in before server.Handler: one HTTP/2 stream's request."""
    request_version = "HTTP/2.0"
    protocol_version = "HTTP/2.0"

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
        self._h2_sent = False   # HEADERS sent
        self._h2_ended = False  # END_STREAM sent
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

    def _h2_headers(self, code, hdrs, end):
        if self._st.gone:
            raise ConnectionResetError("stream reset")
        out = [(b":status", str(code).encode())]
        for k, v in hdrs:
            lk = k.lower()
            if lk in ("connection", "transfer-encoding", "server"):
                continue
            out.append((lk.encode("latin-1"), v.encode("latin-1")))
        self._h2_sent = True
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
        self._h2_headers(code, hdrs, False)
        self._h2_data(data, True)

    def _start_stream_head(self):
        self._h2_headers(200, [("Content-Type", "application/json"), ("Cache-Control", "no-cache, private"),
                               ("Audit-Id", self._audit_id), ("Date", self._date())], False)

    def _chunk(self, data):
        self._h2_data(data, not data)

    def _chunks(self, out):
        self._h2_data(b"".join(out), False)
