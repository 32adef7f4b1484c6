"""The attachment uploads of payment links (both versions) and subscriptions (reference
4.5, 4.6, 4.9, section 8): multipart field ``attachments``, one or more JPG, PNG or PDF
files; links take 10 files and 25 MB in all per request, subscriptions 10 files, 25 MB
each and 25 MB in all (a megabyte is 1024 x 1024 bytes). The answer is
``{message, files: [{path, fullPath, originalName, sizeInMB}]}``, not wrapped in data.

The limits are written out here, not taken from the client's (``pos_app.api.attachments``),
so that the client's checks are tested against the service's rules, not against themselves.
Files are kept with their names and sizes (``link_store.stored_files``); a link create
names them by ``path``. The sandbox does not serve them: ``fullPath`` is an address
under ``files.sandbox.invalid``, a name that never resolves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pos_app.sandbox.link_store import StoredFile, store_of
from pos_app.sandbox.multipart import read_parts
from pos_app.sandbox.protocol import Call, Reply, invalid

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Handler, Sandbox

MB = 1024 * 1024
FIELD = "attachments"
MEDIA_TYPES = ("image/jpeg", "image/png", "application/pdf")
FILES_HOST = "https://files.sandbox.invalid/"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Limits:
    max_files: int
    max_total: int
    max_file: int | None = None


LINK_LIMITS = Limits(max_files=10, max_total=25 * MB)
SUBSCRIPTION_LIMITS = Limits(max_files=10, max_total=25 * MB, max_file=25 * MB)


def _upload(limits: Limits) -> Handler:
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        files = [p for p in read_parts(call.body, FIELD) if p.field == FIELD and p.filename is not None]
        messages = []
        if not files:
            messages.append(f"{FIELD} should not be empty: send one or more files")
        if len(files) > limits.max_files:
            messages.append(f"{FIELD} must contain no more than {limits.max_files} files")
        for part in files:
            if part.media_type not in MEDIA_TYPES:
                messages.append(f"{FIELD}: {part.filename} is not a JPG, PNG or PDF file")
            if limits.max_file is not None and len(part.content) > limits.max_file:
                messages.append(f"{FIELD}: {part.filename} is larger than {limits.max_file // MB} MB")
        if sum(len(p.content) for p in files) > limits.max_total:
            messages.append(f"{FIELD} must not exceed {limits.max_total // MB} MB in total")
        if messages:
            raise invalid(messages)
        store = store_of(book)
        answered = []
        for part in files:
            assert part.filename is not None
            safe = _UNSAFE.sub("-", part.filename).strip("-") or "file"
            stored = StoredFile(path=f"attachments/{book.merchant.client_id}/{sandbox.new_id()}-{safe}",
                                original_name=part.filename, media_type=part.media_type, size=len(part.content))
            store.files[stored.path] = stored
            answered.append(file_json(stored))
        return Reply(201, {"message": "Files uploaded successfully", "files": answered})

    return handler


def file_json(stored: StoredFile) -> dict[str, Any]:
    return {"path": stored.path, "fullPath": FILES_HOST + stored.path, "originalName": stored.original_name,
            "sizeInMB": (Decimal(stored.size) / MB).quantize(Decimal("0.0001"))}


HANDLERS: dict[str, Handler] = {
    "link.upload_attachments": _upload(LINK_LIMITS),
    "old_link.upload_attachments": _upload(LINK_LIMITS),
    "subscription.upload_attachments": _upload(SUBSCRIPTION_LIMITS),
}
