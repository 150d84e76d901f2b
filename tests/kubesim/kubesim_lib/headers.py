"""Request headers without the email package: http.server parses them with
email.parser (a third of a small request's CPU in kubesim); this reads the
plain `Name: value` lines the same way, and leaves anything else (folded
lines, odd names) to email.parser, with the same result either way."""
import email.parser
import http.client
import re

_NAME = re.compile(r"[\041-\071\073-\176]+\Z")  # email.feedparser's header name characters
_read = getattr(http.client, "_read_headers", None)
_orig = http.client.parse_headers


class Headers:
    """The part of email.message.Message the server uses: get, get_all, keys,
    items, with case-insensitive names and the first value winning in get."""
    __slots__ = ("_items", "_lower")

    def __init__(self, items):
        self._items = items
        self._lower = [k.lower() for k, _ in items]

    def get(self, name, failobj=None):
        n = name.lower()
        for i, k in enumerate(self._lower):
            if k == n:
                return self._items[i][1]
        return failobj

    def get_all(self, name, failobj=None):
        n = name.lower()
        out = [self._items[i][1] for i, k in enumerate(self._lower) if k == n]
        return out or failobj

    def __getitem__(self, name):
        return self.get(name)

    def __contains__(self, name):
        return name.lower() in self._lower

    def keys(self):
        return [k for k, _ in self._items]

    def values(self):
        return [v for _, v in self._items]

    def items(self):
        return list(self._items)

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(self.keys())


def _split(lines):
    """(name, value) pairs as email.parser's compat32 policy gives them, or
    None when a line is not a plain header line."""
    out = []
    for raw in lines:
        if raw in (b"\r\n", b"\n", b""):
            break
        line = raw.decode("iso-8859-1")
        name, colon, value = line.partition(":")
        value = value.lstrip(" \t").rstrip("\r\n")
        if not colon or not _NAME.match(name) or "\r" in value or "\n" in value:
            return None
        out.append((name, value))
    return out


def parse_headers(fp, _class=http.client.HTTPMessage):
    if _class is not Headers:
        return _orig(fp, _class)
    lines = _read(fp)  # the same line and count limits (LineTooLong, HTTPException)
    items = _split(lines)
    if items is None:
        text = b"".join(lines).decode("iso-8859-1")  # what http.client.parse_headers does
        items = list(email.parser.Parser(_class=http.client.HTTPMessage).parsestr(text).items())
    return Headers(items)


def install(handler_class):
    """Make handler_class (a BaseHTTPRequestHandler) read its headers with parse_headers."""
    if _read is None:  # another Python's private helper: keep email.parser
        return
    http.client.parse_headers = parse_headers
    handler_class.MessageClass = Headers
