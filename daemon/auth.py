"""Bearer tokens for the TCP listener (the unix socket relies on its 0600 file mode).

At first start the daemon writes a random token to ``<data dir>/api-token`` (mode 0600); it
grants every namespace. More tokens, each restricted to some namespaces, can be listed in
``<data dir>/tokens`` (or the file the configuration names), one per line::

    # token                                  namespaces (comma-separated, or * for all)
    4f0c2a...e1                              alice,alice-work
    9b7d11...02                              *

Blank lines and ``#`` comments are ignored. Clients send ``Authorization: Bearer <token>``.
Tokens are compared by their SHA-256 digest, so lookup time does not depend on how much of a
guessed token is right.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

TOKEN_FILE = "api-token"
TOKENS_FILE = "tokens"


class TokenFileError(ValueError):
    """A tokens file line could not be understood."""


def _digest(token: str) -> bytes:
    # surrogateescape: a header that is not UTF-8 arrives with lone surrogates; it matches no
    # token, and must not be an encoding error.
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


@dataclass(frozen=True, slots=True)
class Grant:
    """What one token may do: ``namespaces`` None means every namespace."""

    name: str
    namespaces: frozenset[str] | None

    def allows(self, namespace: str) -> bool:
        """Return True if the token may act in ``namespace``."""
        return self.namespaces is None or namespace in self.namespaces


@dataclass(slots=True)
class TokenSet:
    """Accepted tokens (by digest) and their grants."""

    grants: dict[bytes, Grant] = field(default_factory=dict)

    def add(self, token: str, grant: Grant) -> None:
        """Accept ``token`` with ``grant``."""
        self.grants[_digest(token)] = grant

    def check(self, authorization: str | None) -> Grant | None:
        """Return the grant of an ``Authorization: Bearer`` header, or None."""
        if not authorization:
            return None
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.grants.get(_digest(token.strip()))


def new_token() -> str:
    """A fresh random token that never starts with "-": pasted after ``--token`` it would be
    read as an option."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def ensure_token_file(data_dir: Path) -> str:
    """Return the daemon's token, creating ``<data dir>/api-token`` (0600) the first time."""
    path = data_dir / TOKEN_FILE
    if path.exists():
        token = path.read_text().strip()
        if token:
            return token
    data_dir.mkdir(parents=True, exist_ok=True)
    token = new_token()
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (token + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return token


def parse_tokens_file(text: str, source: str = TOKENS_FILE) -> list[tuple[str, Grant]]:
    """Parse a tokens file into (token, grant) pairs."""
    out: list[tuple[str, Grant]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise TokenFileError(f"{source}:{lineno}: expected 'TOKEN NAMESPACES'")
        token, spec = parts
        if len(token) < 16:
            raise TokenFileError(f"{source}:{lineno}: token is shorter than 16 characters")
        names = frozenset(n.strip() for n in spec.split(",") if n.strip())
        if not names:
            raise TokenFileError(f"{source}:{lineno}: no namespaces")
        namespaces = None if "*" in names else names
        out.append((token, Grant(name=f"{source}:{lineno}", namespaces=namespaces)))
    return out


def load_tokens(data_dir: Path, tokens_file: Path | None = None) -> TokenSet:
    """Return the daemon token (created if missing) plus any from the tokens file."""
    tokens = TokenSet()
    tokens.add(ensure_token_file(data_dir), Grant(name=TOKEN_FILE, namespaces=None))
    path = tokens_file if tokens_file is not None else data_dir / TOKENS_FILE
    if path.exists():
        for token, grant in parse_tokens_file(path.read_text(), str(path)):
            tokens.add(token, grant)
    return tokens
