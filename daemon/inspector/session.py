"""Who may see the inspector: one-time login tokens, session cookies and their CSRF tokens.

``memoryd inspect`` asks the daemon for a login token (over the owner-only unix socket, or over
TCP with a bearer token whose namespaces the login keeps). The token is good for one visit
within :data:`LOGIN_TTL`: that visit trades it for a session id in an HttpOnly, SameSite=Strict
cookie, so the token in a shell's history or a browser's address bar is worth nothing after.
Each session has its own CSRF token, which every state-changing form carries back.

Everything is kept in memory (digests only): a daemon restart ends every session.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

LOGIN_TTL = 300.0
"""Seconds a login token may wait for its visit."""
SESSION_TTL = 12 * 3600.0
"""Seconds a session lasts from its login (a working day); then ``memoryd inspect`` again."""
COOKIE_NAME = "memoryd_inspector"
MAX_PENDING = 100
"""Login tokens kept at most; the oldest go first (a script asking in a loop fills nothing)."""


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True, slots=True)
class Session:
    """One logged-in browser: the namespaces it may see (None: all) and its CSRF token."""

    namespaces: frozenset[str] | None
    csrf: str
    expires: float

    def allows(self, namespace: str) -> bool:
        """Return True if the session may see ``namespace``."""
        return self.namespaces is None or namespace in self.namespaces

    def default_namespace(self, preferred: str) -> str:
        """Return ``preferred`` if allowed, else the first namespace the session may see."""
        if self.allows(preferred) or not self.namespaces:
            return preferred
        return min(self.namespaces)

    def csrf_matches(self, given: str | None) -> bool:
        """Return True if a form's CSRF token is this session's (constant-time)."""
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


SESSION: web.RequestKey[Session] = web.RequestKey("memoryd_inspector_session", Session)
"""The session a page request belongs to (set by the guard)."""


@dataclass(slots=True)
class Sessions:
    """Pending login tokens and live sessions, by the digest of their secret."""

    clock: Callable[[], float] = time.monotonic
    logins: dict[str, tuple[frozenset[str] | None, float]] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)

    def issue_login(self, namespaces: frozenset[str] | None) -> str:
        """Return a fresh one-time login token for a session limited to ``namespaces``."""
        self._expire()
        while len(self.logins) >= MAX_PENDING:
            self.logins.pop(next(iter(self.logins)))
        token = secrets.token_urlsafe(32)
        self.logins[_digest(token)] = (namespaces, self.clock() + LOGIN_TTL)
        return token

    def redeem(self, token: str) -> tuple[str, Session] | None:
        """Trade a login token (once) for a new session; return its cookie value and itself."""
        self._expire()
        pending = self.logins.pop(_digest(token), None)
        if pending is None:
            return None
        session_id = secrets.token_urlsafe(32)
        session = Session(
            namespaces=pending[0],
            csrf=secrets.token_urlsafe(24),
            expires=self.clock() + SESSION_TTL,
        )
        self.sessions[_digest(session_id)] = session
        return session_id, session

    def find(self, cookie: str | None) -> Session | None:
        """Return the live session a cookie names, or None."""
        if not cookie:
            return None
        session = self.sessions.get(_digest(cookie))
        if session is None or session.expires <= self.clock():
            return None
        return session

    def end(self, cookie: str) -> None:
        """Forget a session (logout)."""
        self.sessions.pop(_digest(cookie), None)

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, (_, until) in self.logins.items() if until <= now]:
            del self.logins[key]
        for key in [k for k, s in self.sessions.items() if s.expires <= now]:
            del self.sessions[key]
