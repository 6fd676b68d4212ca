"""Sign-off: who may sign, who signed what with which key, and which version of each entry may be published.

This package is the only reader and writer of ``signoff.yaml``. Everyone else asks it: the build through
:func:`site_plugins.publishing.publish.decide`, the CLI through :mod:`site_plugins.cli.sign`.

The file registers people (a name, an optional handle, and their SSH public keys) and, per entry (keyed by
its repo-relative path), the author's and the reviewer's signatures. A signature records who, when (UTC),
the *fingerprint* of exactly what was signed (:class:`site_plugins.signoff.signable.Signable`: the entry's whole
Markdown text, every measured value it shows, every code excerpt it quotes and every code file it
publishes) and an SSH signature over those, made with the signer's key (``ssh-keygen -Y sign``, as git
signs commits). An entry is *signed* when a registered author and a different registered reviewer, each
with a key registered to them, signed the entry's current fingerprint.

When a signed entry changes, the version both signed stays published until the change is signed: it is
recovered from git (the entry's text and code files at the commit whose fingerprint matches). While the
change is being re-signed, the pair that signed the published version is kept under ``previous``.

Modules: :mod:`.model` (the declared schema, name comparison), :mod:`.keys` (SSH signatures and what
they bind), :mod:`.registry` (reading and checking the file), :mod:`.history` (refusing an older pair
copied back, from git history), :mod:`.fingerprints`, :mod:`.state` (states, recovery), :mod:`.signing`
(who may sign what), :mod:`.store` (writing the file).
"""

from site_plugins.signoff.fingerprints import changed_parts, covers, fingerprint
from site_plugins.signoff.history import load
from site_plugins.signoff.keys import NAMESPACE, SigningError
from site_plugins.signoff.model import (
    FILE,
    Covers,
    EntrySignoff,
    Pair,
    Person,
    Registry,
    Role,
    Signature,
    State,
    ident,
    skeleton,
)
from site_plugins.signoff.registry import parse
from site_plugins.signoff.signing import NothingToDo, Refused, check, draft_signature, now_utc, record, with_signature
from site_plugins.signoff.state import (
    Assessment,
    Recovered,
    SignableAt,
    Status,
    assess,
    evaluate,
    head_commits,
    recover,
    text_only,
)
from site_plugins.signoff.store import NotWritten, write_entries, write_entry

__all__ = [
    "FILE",
    "NAMESPACE",
    "Assessment",
    "Covers",
    "EntrySignoff",
    "NotWritten",
    "NothingToDo",
    "Pair",
    "Person",
    "Recovered",
    "Refused",
    "Registry",
    "Role",
    "SignableAt",
    "Signature",
    "SigningError",
    "State",
    "Status",
    "assess",
    "changed_parts",
    "check",
    "covers",
    "draft_signature",
    "evaluate",
    "fingerprint",
    "head_commits",
    "ident",
    "load",
    "now_utc",
    "parse",
    "record",
    "recover",
    "skeleton",
    "text_only",
    "with_signature", "write_entries",
    "write_entry",
]
