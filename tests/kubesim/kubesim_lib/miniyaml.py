"""A small YAML reader for apply bodies (the block-style subset kubectl and
client libraries emit: mappings, sequences, plain/quoted scalars, | and >
blocks, simple flow collections, comments). Anything else raises ValueError."""
import json
import re

_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
MAX_DEPTH = 100


def _scalar(s):
    s = s.strip()
    if s == "" or s in ("~", "null", "Null", "NULL"):
        return None
    if s.startswith('"'):
        return json.loads(s)
    if s.startswith("'"):
        if not s.endswith("'") or len(s) < 2:
            raise ValueError("unterminated quoted scalar: %s" % s)
        return s[1:-1].replace("''", "'")
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if _INT.match(s):
        return int(s)
    if _FLOAT.match(s):
        return float(s)
    if s.startswith(("{", "[")):
        return _flow(s)
    return s


def _flow(s):
    try:
        return json.loads(s)
    except ValueError:
        pass
    pos = [0]

    def skip():
        while pos[0] < len(s) and s[pos[0]] in " \t":
            pos[0] += 1

    def value(depth):
        if depth > MAX_DEPTH:
            raise ValueError("nesting too deep")
        skip()
        c = s[pos[0]] if pos[0] < len(s) else ""
        if c == "{":
            pos[0] += 1
            out = {}
            while True:
                skip()
                if s[pos[0]:pos[0] + 1] == "}":
                    pos[0] += 1
                    return out
                k = _scalar(atom(":"))
                k = "" if k is None else (k if isinstance(k, str) else json.dumps(k))
                if s[pos[0]:pos[0] + 1] != ":":
                    raise ValueError("expected ':' in flow mapping")
                pos[0] += 1
                out[k] = value(depth + 1)
                skip()
                if s[pos[0]:pos[0] + 1] == ",":
                    pos[0] += 1
        if c == "[":
            pos[0] += 1
            out = []
            while True:
                skip()
                if s[pos[0]:pos[0] + 1] == "]":
                    pos[0] += 1
                    return out
                out.append(value(depth + 1))
                skip()
                if s[pos[0]:pos[0] + 1] == ",":
                    pos[0] += 1
        return _scalar(atom(",]}"))

    def atom(stops):
        skip()
        start = pos[0]
        if pos[0] < len(s) and s[pos[0]] in "\"'":
            q = s[pos[0]]
            pos[0] += 1
            while pos[0] < len(s) and s[pos[0]] != q:
                pos[0] += 2 if s[pos[0]] == "\\" and q == '"' else 1
            pos[0] += 1
            return s[start:pos[0]]
        while pos[0] < len(s) and s[pos[0]] not in stops:
            pos[0] += 1
        return s[start:pos[0]].strip()

    v = value(0)
    skip()
    if pos[0] != len(s):
        raise ValueError("trailing characters in flow collection: %s" % s)
    return v


def _strip_comment(line):
    if "#" not in line:
        return line
    out, q = [], None
    for i, ch in enumerate(line):
        if q:
            if ch == q:
                q = None
        elif ch in "\"'":
            q = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out)


def load(text):
    lines = []
    raw = text.split("\n")
    for ln in raw:
        if ln.strip() in ("---", "...") and not lines:
            continue
        lines.append(ln)
    p = _Parser(lines)
    v = p.block(-1, 0)
    return v


class _Parser:
    def __init__(self, lines):
        self.lines = lines
        self.i = 0

    def _next(self):
        while self.i < len(self.lines):
            ln = _strip_comment(self.lines[self.i]).rstrip()
            if ln.strip():
                return ln
            self.i += 1
        return None

    def block(self, parent_indent, depth):
        if depth > MAX_DEPTH:
            raise ValueError("nesting too deep")
        ln = self._next()
        if ln is None:
            return None
        ind = len(ln) - len(ln.lstrip(" "))
        if ind <= parent_indent:
            return None
        if ln.lstrip().startswith("- ") or ln.strip() == "-":
            return self.seq(ind, depth)
        return self.mapping(ind, depth)

    def seq(self, ind, depth):
        out = []
        while True:
            ln = self._next()
            if ln is None:
                return out
            cur = len(ln) - len(ln.lstrip(" "))
            body = ln.strip()
            if cur != ind or not (body.startswith("- ") or body == "-"):
                if cur > ind:
                    raise ValueError("bad indentation at line %d" % (self.i + 1))
                return out
            rest = body[1:].lstrip()
            if not rest:
                self.i += 1
                out.append(self.block(ind, depth + 1))
                continue
            if _is_key(rest):
                # "- key: value" starts a mapping indented at the item content
                self.lines[self.i] = " " * (ind + 2) + rest
                out.append(self.mapping(ind + 2, depth + 1))
                continue
            self.i += 1
            out.append(self.value_after(rest, ind, depth))

    def mapping(self, ind, depth):
        out = {}
        while True:
            ln = self._next()
            if ln is None:
                return out
            cur = len(ln) - len(ln.lstrip(" "))
            if cur < ind:
                return out
            if cur > ind:
                raise ValueError("bad indentation at line %d" % (self.i + 1))
            body = ln.strip()
            if body.startswith("- "):
                return out
            m = _key_split(body)
            if m is None:
                raise ValueError("expected 'key: value' at line %d: %s" % (self.i + 1, body))
            k, rest = m
            self.i += 1
            if rest == "":
                nxt = self._next()
                if nxt is not None:
                    nind = len(nxt) - len(nxt.lstrip(" "))
                    if nind == ind and nxt.strip().startswith("- "):
                        out[k] = self.seq(ind, depth + 1)
                        continue
                out[k] = self.block(ind, depth + 1)
            else:
                out[k] = self.value_after(rest, ind, depth)

    def value_after(self, rest, ind, depth):
        if rest[0] in "|>":
            return self.literal(rest, ind)
        if rest[0] in "{[" and not _balanced(rest):
            buf = rest
            while not _balanced(buf) and self.i < len(self.lines):
                buf += " " + self.lines[self.i].strip()
                self.i += 1
            return _flow(buf)
        if rest[0] == '"' and not _closed_dq(rest):
            buf = rest
            while not _closed_dq(buf) and self.i < len(self.lines):
                buf += " " + self.lines[self.i].strip()
                self.i += 1
            return _scalar(buf)
        return _scalar(rest)

    def literal(self, head, ind):
        style, chomp = head[0], ""
        for ch in head[1:].strip():
            if ch in "+-":
                chomp = ch
        block = []
        bind = None
        while self.i < len(self.lines):
            ln = self.lines[self.i]
            if ln.strip() == "":
                block.append("")
                self.i += 1
                continue
            cur = len(ln) - len(ln.lstrip(" "))
            if cur <= ind:
                break
            if bind is None:
                bind = cur
            block.append(ln[bind:])
            self.i += 1
        while block and block[-1] == "" and chomp != "+":
            block.pop()
        if style == "|":
            text = "\n".join(block)
        else:
            text = ""
            for n, b in enumerate(block):
                if n and b and block[n - 1] and not b.startswith(" "):
                    text += " "
                elif n:
                    text += "\n"
                text += b
        if chomp != "-":
            text += "\n"
        return text


def _balanced(s):
    d, q = 0, None
    for ch in s:
        if q:
            if ch == q:
                q = None
        elif ch in "\"'":
            q = ch
        elif ch in "{[":
            d += 1
        elif ch in "}]":
            d -= 1
    return d == 0


def _closed_dq(s):
    i = 1
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == '"':
            return True
        i += 1
    return False


def _key_split(body):
    if body.startswith(('"', "'")):
        q = body[0]
        j = 1
        while j < len(body) and body[j] != q:
            j += 2 if body[j] == "\\" and q == '"' else 1
        key = _scalar(body[:j + 1])
        rest = body[j + 1:].lstrip()
        if not rest.startswith(":"):
            return None
        return str(key), rest[1:].strip()
    m = re.match(r"^([^:#{}\[\],]+?|[^ ].*?):( |$)(.*)$", body)
    if not m:
        return None
    return m.group(1).strip(), m.group(3).strip()


def _is_key(s):
    if s.startswith(("{", "[", "|", ">")):
        return False
    if s.startswith(('"', "'")):
        return _key_split(s) is not None
    return re.match(r"^[^:#{}\[\],]+?:( |$)", s) is not None
