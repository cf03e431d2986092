"""Who may read a served logdir: the `Host` rule, the token, the POST origin rule and HTTPS.

Upstream's server answers any request that reaches its port. Served on a laptop, that lets any web page the user
visits read the logs through DNS rebinding (a hostname the attacker controls, made to resolve to 127.0.0.1); served
on a shared machine, anyone who can reach the port reads them. Every request passes `AccessGuard` first, whichever
data path serves (ours, upstream's native data server or its Python loader), and every route alike:

* **Host.** A server bound to a loopback address answers only requests whose `Host` is a loopback address or
  `localhost` (any port), plus the names of `--allowed_hosts`; anything else gets a 403 naming that flag. A server
  bound beyond loopback answers any host unless `--allowed_hosts` is given, and is protected by its token instead.
* **Token** (`--auth token`, the default beyond loopback): `?token=` in the URL (the start-up line prints it)
  sets an HttpOnly, SameSite=Strict cookie for later requests; scripts send `Authorization: Bearer TOKEN`. Tokens
  are compared in constant time; a missing or wrong one gets a 401 that says where the token is, never the token.
* **Origin.** A request that can change state (anything but GET, HEAD, OPTIONS) sent by a browser must come from
  the server's own origin: its `Origin` (else `Referer`) names the host it was sent to.
* **HTTPS** with `--certfile` and `--keyfile`.

`install(program)` wires this into upstream's `program.TensorBoard`; `AccessFlags` adds the flags.
"""
from __future__ import annotations

import dataclasses
import hmac
import ipaddress
import secrets
import sys
import urllib.parse
from typing import Callable, Iterable, Literal

from tensorboard.plugins import base_plugin

AuthMode = Literal["auto", "token", "none"]
AUTH_MODES: tuple[AuthMode, ...] = ("auto", "token", "none")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # the methods a cross-site page may send without changing state
TOKEN_PARAMETER = "token"
TOKEN_BYTES = 24  # as Jupyter's: 48 hex digits
COOKIE_PREFIX = "tensorboard-token-"  # + the port: cookies ignore ports, and two servers of a host keep their own
TOKEN_FILE_MAX_BYTES = 4096


@dataclasses.dataclass(frozen=True)
class AccessPolicy:
    """What `AccessGuard` lets through.

    Attributes:
        loopback_only: the server is bound to a loopback address: besides `allowed_hosts`, only loopback
            `Host`s are answered. False beyond loopback: any host, unless `allowed_hosts` is given.
        allowed_hosts: lower-case host names (no port); `.example.com` also allows every subdomain, `*` any host.
        token: the token every request must carry, or None (`--auth none`).
        port: the port the cookie is named after.
    """
    loopback_only: bool
    allowed_hosts: frozenset[str] = frozenset()
    token: str | None = None
    port: int = 0

    @property
    def cookie(self) -> str:
        return f"{COOKIE_PREFIX}{self.port}"


def is_loopback_bind(host: str | None, bind_all: bool) -> bool:
    """True when the server listens on loopback only: no --bind_all, and --host unset (upstream binds localhost),
    `localhost`, or a loopback address."""
    if bind_all:
        return False
    return host is None or host_is_loopback(host)


def host_is_loopback(name: str) -> bool:
    """`localhost`, a name under `.localhost` (RFC 6761: never sent to DNS), or an address in 127.0.0.0/8 or ::1."""
    name = name.lower().rstrip(".").strip("[]")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def split_host(header: str) -> str:
    """The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower-case, without the port."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def parse_allowed_hosts(value: str | None) -> frozenset[str]:
    """`--allowed_hosts a.example,.corp.example,*`: the names, lower-case (`*.corp.example` is `.corp.example`);
    a ValueError names a bad one."""
    names = set()
    for raw in (value or "").split(","):
        name = raw.strip().lower().rstrip(".")
        if name.startswith("*."):  # the usual spelling of a domain and its subdomains
            name = name[1:]
        if not name:
            continue
        if not _is_host_pattern(name):
            raise ValueError(f"--allowed_hosts: {raw.strip()!r} is not a host name (give names without scheme, "
                             "port or path, such as tb.example.com or .example.com)")
        names.add(name.strip("[]"))
    return frozenset(names)


def _is_host_pattern(name: str) -> bool:
    """`*`, an IP address (IPv6 with or without brackets), or a name (`.` first for its subdomains too)."""
    if name == "*":
        return True
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return not any(c in name for c in "/ @?#:[]*")
    return True


def host_allowed(policy: AccessPolicy, host: str) -> bool:
    """Whether a request for `host` (as split_host gives it) is answered. A loopback name always is: no web page
    reaches it through DNS it controls."""
    if host_is_loopback(host) or "*" in policy.allowed_hosts or host in policy.allowed_hosts:
        return True
    if any(allowed.startswith(".") and (host.endswith(allowed) or host == allowed[1:])
           for allowed in policy.allowed_hosts):
        return True
    return not policy.loopback_only and not policy.allowed_hosts  # beyond loopback: any, unless narrowed


def same_origin(policy: AccessPolicy, environ: dict) -> bool:
    """A state-changing request comes from the server's own origin: its `Origin`, else its `Referer`, names the
    host and port the request was sent to, or a host `--allowed_hosts` names (a proxy that rewrites `Host`).
    Neither header: not sent by a browser page, so no cross-site risk."""
    source = environ.get("HTTP_ORIGIN") or environ.get("HTTP_REFERER")
    if source is None:
        return True
    if source == "null":  # an opaque origin: a sandboxed frame, a file:// page, a redirect across sites
        return False
    netloc = urllib.parse.urlsplit(source).netloc.lower()
    if not netloc:
        return False
    return netloc == environ.get("HTTP_HOST", "").strip().lower() or split_host(netloc) in policy.allowed_hosts


def presented_token(environ: dict, cookie: str) -> tuple[str | None, bool]:
    """(the token the request carries, whether it came in the URL): `Authorization: Bearer`, `?token=`, the
    cookie, in that order."""
    header = environ.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() in ("bearer", "token") and value.strip():
        return value.strip(), False
    query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
    if query.get(TOKEN_PARAMETER):
        return query[TOKEN_PARAMETER][-1], True
    for part in environ.get("HTTP_COOKIE", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == cookie and value:
            return value, False
    return None, False


def token_matches(presented: str | None, expected: str) -> bool:
    """Constant-time comparison (hmac.compare_digest), so the time taken tells nothing of the token."""
    return presented is not None and hmac.compare_digest(presented.encode("utf-8", "replace"),
                                                         expected.encode("utf-8"))


class AccessGuard:
    """WSGI middleware: `app` answers only the requests `policy` lets through (the module's docstring)."""

    def __init__(self, app: Callable, policy: AccessPolicy):
        self.app, self.policy = app, policy

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        # No Host header at all (HTTP/1.0): the address the request reached. A browser always sends one.
        host = split_host(environ["HTTP_HOST"] if "HTTP_HOST" in environ else environ.get("SERVER_NAME", ""))
        if not host_allowed(self.policy, host):
            return refuse(start_response, "403 Forbidden",
                          f"This TensorBoard does not answer requests for the host {host!r}: a page that is not "
                          f"yours may be asking. If you opened it by that name, restart tensorboard with "
                          f"--allowed_hosts {host or 'NAME'}")
        if environ.get("REQUEST_METHOD", "GET").upper() not in SAFE_METHODS and not same_origin(self.policy, environ):
            return refuse(start_response, "403 Forbidden",
                          "This TensorBoard accepts changes only from its own pages: the request's Origin is "
                          "another site")
        if self.policy.token is None:
            return self.app(environ, start_response)
        token, in_url = presented_token(environ, self.policy.cookie)
        if not token_matches(token, self.policy.token):
            return refuse(start_response, "401 Unauthorized",
                          ("The token in this request is not this TensorBoard's. " if token else
                           "This TensorBoard needs its token. ") +
                          "Open the URL it printed when it started (it ends in ?token=...), or send the header "
                          "'Authorization: Bearer TOKEN'; the token is in that start-up line, or in the file "
                          "given with --auth_token_file", [("WWW-Authenticate", 'Bearer realm="tensorboard"')])
        if not in_url:
            return self.app(environ, start_response)
        cookie = (f"{self.policy.cookie}={self.policy.token}; Path=/; HttpOnly; SameSite=Strict"
                  + ("; Secure" if environ.get("wsgi.url_scheme") == "https" else ""))

        def with_cookie(status, headers, exc_info=None):
            return start_response(status, list(headers) + [("Set-Cookie", cookie)], exc_info)

        return self.app(environ, with_cookie)


def refuse(start_response: Callable, status: str, message: str, extra: list | None = None) -> list[bytes]:
    """A plain-text refusal of one line (a script can print it as it is)."""
    body = (message + "\n").encode("utf-8", "replace")
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                            ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")] + (extra or []))
    return [body]


FLAG_HELP = {
    "allowed_hosts": "Comma-separated host names this server answers besides loopback ones (a name a reverse proxy "
                     "or a DNS entry gives it; .example.com allows its subdomains; * any host). Bound to loopback "
                     "(the default), every other Host gets a 403; bound beyond loopback, any host is answered "
                     "unless this narrows them.",
    "auth": "token: every request needs the server's token (printed in its URL at start; a cookie keeps it; "
            "scripts send 'Authorization: Bearer TOKEN'). none: no token. auto (default): token when bound beyond "
            "loopback (--bind_all, or a --host that is not a loopback address), else none.",
    "auth_token_file": "With --auth token: read the token from this file (its first line) instead of making a "
                       "random one at each start.",
    "certfile": "Serve HTTPS with this PEM certificate (chain); needs --keyfile.",
    "keyfile": "The PEM private key of --certfile.",
}


class AccessFlags(base_plugin.TBLoader):
    """Adds --allowed_hosts, --auth, --auth_token_file, --certfile and --keyfile; loads no plugin."""

    def define_flags(self, parser) -> None:
        parser.add_argument("--allowed_hosts", metavar="NAME,...", type=str, default=None,
                            help=FLAG_HELP["allowed_hosts"])
        parser.add_argument("--auth", metavar="{auto,token,none}", type=str, default="auto", choices=AUTH_MODES,
                            help=FLAG_HELP["auth"])
        for name in ("auth_token_file", "certfile", "keyfile"):
            parser.add_argument("--" + name, metavar="PATH", type=str, default=None, help=FLAG_HELP[name])

    def fix_flags(self, flags) -> None:
        try:
            parse_allowed_hosts(flags.allowed_hosts)
            if flags.auth_token_file is not None:
                if flags.auth == "none":
                    raise ValueError("--auth_token_file goes with --auth token, not --auth none")
                read_token_file(flags.auth_token_file)
            if bool(flags.certfile) != bool(flags.keyfile):
                raise ValueError("--certfile and --keyfile go together: give both for HTTPS")
            if flags.certfile:
                tls_context(flags.certfile, flags.keyfile)
        except ValueError as err:
            raise base_plugin.FlagsError(str(err)) from None

    def load(self, context):
        return None


def read_token_file(path: str) -> str:
    """The token in `path`'s first line; a ValueError names the flag when the file is missing, empty or huge."""
    try:
        with open(path, "rb") as f:
            data = f.read(TOKEN_FILE_MAX_BYTES + 1)
    except OSError as err:
        raise ValueError(f"--auth_token_file {path}: {err.strerror or err}") from None
    token = data[:TOKEN_FILE_MAX_BYTES].decode("utf-8", "replace").split("\n", 1)[0].strip()
    if len(data) > TOKEN_FILE_MAX_BYTES or not token or any(c.isspace() or c in ";," for c in token):
        raise ValueError(f"--auth_token_file {path}: its first line must be one token (no spaces, ';' or ','; "
                         f"at most {TOKEN_FILE_MAX_BYTES} bytes)")
    return token


def tls_context(certfile: str, keyfile: str):
    """A server-side TLS context of the certificate and key; a ValueError names the flag they came from."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certfile, keyfile)
    except (OSError, ssl.SSLError) as err:
        raise ValueError(f"--certfile {certfile} / --keyfile {keyfile}: {getattr(err, 'strerror', None) or err}") \
            from None
    return context


def policy_for(flags, port: int) -> AccessPolicy:
    """The policy the flags ask for; flags upstream's program lacks (an embedding without AccessFlags) take their
    defaults."""
    loopback = is_loopback_bind(getattr(flags, "host", None), bool(getattr(flags, "bind_all", False)))
    mode = getattr(flags, "auth", "auto") or "auto"
    token = None
    if mode == "token" or (mode == "auto" and not loopback):
        path = getattr(flags, "auth_token_file", None)
        token = read_token_file(path) if path else secrets.token_hex(TOKEN_BYTES)
    return AccessPolicy(loopback_only=loopback, allowed_hosts=parse_allowed_hosts(getattr(flags, "allowed_hosts",
                                                                                          None)),
                        token=token, port=port)


def redacted(text: str) -> str:
    """`text` (a request line) with the value of every `token=` parameter replaced: the token is never logged."""
    import re

    return re.sub(r"([?&]token=)[^&\s]*", r"\1(redacted)", text)


def secure(server, flags, stderr=None):
    """Puts `server` (upstream's WerkzeugServer) behind the policy of `flags`: the guard around its app, HTTPS
    when asked, a URL that carries the token, and request logs without it. Returns the server."""
    policy = policy_for(flags, server.server_port)
    server.app = AccessGuard(server.app, policy)
    scheme = "http"
    if getattr(flags, "certfile", None):
        server.ssl_context = tls_context(flags.certfile, flags.keyfile)
        server.socket = server.ssl_context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    handler = server.RequestHandlerClass

    class RedactingHandler(handler):
        def log_request(self, *args, **kwargs):
            self.requestline = redacted(getattr(self, "requestline", ""))
            return super().log_request(*args, **kwargs)

    server.RequestHandlerClass = RedactingHandler
    plain_url = server.get_url()
    url = scheme + plain_url[plain_url.index(":"):]
    if policy.token is not None:
        url += "?" + urllib.parse.urlencode({TOKEN_PARAMETER: policy.token})
    server.get_url = lambda: url
    if policy.token is None and not policy.loopback_only:
        print(f"tensorboard: warning: --auth none on {plain_url}: anyone who can reach this port reads these logs",
              file=stderr or sys.stderr, flush=True)
    return server


def install(program) -> None:
    """Makes upstream's `program.TensorBoard` build every server behind `secure` (once per module)."""
    if getattr(program.TensorBoard, "_access_installed", False):
        return
    original = program.TensorBoard._make_server  # pylint: disable=protected-access

    def _make_server(self):
        return secure(original(self), self.flags)

    program.TensorBoard._make_server = _make_server  # pylint: disable=protected-access
    program.TensorBoard._access_installed = True  # pylint: disable=protected-access
