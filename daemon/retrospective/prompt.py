"""The retrospective prompt: the bundled file or ``prompt_path``, and its placeholders.

``prompt_path`` replaces the bundled ``prompt.md`` unless it is unusable: a path that resolves
(symlinks included) outside the workspace, not a regular file, larger than 1 MiB, blank, or
unreadable (or not UTF-8). Each of those falls back to the bundled prompt with a warning that
says why. Placeholders: ``{{AVAILABLE_TOOLS_LINE}}``, ``{{WINDOW_ANCHOR}}``,
``{{ALREADY_REMEMBERED}}``, ``{{SKILL_AUTHORING_SECTION}}``. A custom prompt that leaves out
``{{ALREADY_REMEMBERED}}`` gets the block appended, so nothing is remembered twice.

Untrusted text (remembered facts, transcript messages) is escaped so that it cannot close
the block it sits in: ``<`` and ``>`` become ``&lt;`` and ``&gt;``.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from daemon.logging import get_logger
from plugins.llm.remember import NOTHING_NEW as NOTHING_NEW  # where the daemon reads it

MAX_PROMPT_BYTES = 1024 * 1024
PLACEHOLDERS = (
    "{{AVAILABLE_TOOLS_LINE}}",
    "{{WINDOW_ANCHOR}}",
    "{{ALREADY_REMEMBERED}}",
    "{{SKILL_AUTHORING_SECTION}}",
)
TOOLS_LINE = (
    "Available tool: remember(text, tags?, importance?) - call it once for each fact worth "
    f'keeping. If there is none, reply exactly "{NOTHING_NEW}"'
)

log = get_logger(__name__)


def bundled_prompt() -> str:
    """Return the prompt shipped with memoryd."""
    return (resources.files("daemon.retrospective") / "prompt.md").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class PromptSource:
    """The template in use and where it came from."""

    template: str
    origin: str
    """``bundled`` or the custom file's resolved path."""
    fallback_reason: str | None = None


def load_prompt(prompt_path: Path | None, workspace: Path | None) -> PromptSource:
    """Read ``prompt_path`` if it is usable, else the bundled prompt (with a warning)."""
    if prompt_path is None:
        return PromptSource(bundled_prompt(), "bundled")
    reason = _unusable(prompt_path, workspace)
    if reason is None:
        try:
            text = prompt_path.resolve().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = f"unreadable ({type(exc).__name__})"
        else:
            if not text.strip():
                reason = "blank"
            else:
                return PromptSource(text, str(prompt_path.resolve()))
    log.warning(
        "retrospective.prompt_fallback",
        prompt_path=str(prompt_path),
        reason=reason,
        using="bundled",
    )
    return PromptSource(bundled_prompt(), "bundled", reason)


def _unusable(path: Path, workspace: Path | None) -> str | None:
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return "does not exist or cannot be resolved"
    if workspace is not None:
        root = workspace.resolve()
        if not resolved.is_relative_to(root):
            return f"resolves outside the workspace {root}"
    try:
        info = resolved.stat()
    except OSError as exc:
        return f"unreadable ({type(exc).__name__})"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > MAX_PROMPT_BYTES:
        return f"larger than {MAX_PROMPT_BYTES} bytes"
    return None


def escape_block_text(text: str) -> str:
    """Escape text so it cannot open or close a tag-delimited block."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def remembered_block(remembered: Sequence[str]) -> str:
    """Return the ``<already_remembered>`` block."""
    if not remembered:
        body = "(nothing yet)"
    else:
        body = "\n".join(f"- {escape_block_text(' '.join(t.split()))}" for t in remembered)
    return (
        "Already remembered from this conversation:\n"
        f"<already_remembered>\n{body}\n</already_remembered>"
    )


def render_prompt(
    template: str,
    *,
    window_anchor: str,
    remembered: Sequence[str],
    skill_section: str = "",
) -> str:
    """Substitute the placeholders (in one pass, so substituted text is never re-read)."""
    values = {
        "{{AVAILABLE_TOOLS_LINE}}": TOOLS_LINE,
        "{{WINDOW_ANCHOR}}": window_anchor,
        "{{ALREADY_REMEMBERED}}": remembered_block(remembered),
        "{{SKILL_AUTHORING_SECTION}}": skill_section,
    }
    out: list[str] = []
    rest = template
    while rest:
        index, found = min(((rest.find(p), p) for p in PLACEHOLDERS if p in rest), default=(-1, ""))
        if index < 0:
            out.append(rest)
            break
        out.append(rest[:index])
        out.append(values[found])
        rest = rest[index + len(found) :]
    text = "".join(out)
    if "{{ALREADY_REMEMBERED}}" not in template:
        text = f"{text.rstrip()}\n\n{values['{{ALREADY_REMEMBERED}}']}\n"
    return text
