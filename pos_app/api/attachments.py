"""Attachments of payment links and subscriptions (reference 4.5, 4.6, 4.9 and section 8):
files checked against the service's limits before anything is sent, uploaded as
multipart field ``attachments``, answered as file objects for a link's or a
subscription's ``attachments`` field. The upload calls are in ``pos_app.api.uploads``.

The limits: JPG, PNG or PDF only; payment links take 10 files per request, 25 MB in all;
subscriptions take, by default, 10 files, 25 MB each and 25 MB in all (a deployment may
configure others: pass its ``AttachmentLimits``). A megabyte is 1024 x 1024 bytes here.
A file's type is read from its name and proven by its first bytes: a ``.png`` that is
no PNG is refused. Every refusal is ``InvalidInput`` naming the file, and no request
is sent. Uploaded files are publicly readable (``full_path`` needs no key).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path, PurePath
from typing import Any

from pydantic import Field

from pos_app.api.errors import InvalidInput
from pos_app.api.models import Answer, Lenient, Text, unwrap
from pos_app.api.multipart import EncodedBody, FormFile, form_files
from pos_app.i18n import _

MB = 1024 * 1024
FIELD = "attachments"

MEDIA_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".pdf": "application/pdf"}
SIGNATURES = {"image/jpeg": b"\xff\xd8\xff", "image/png": b"\x89PNG\r\n\x1a\n", "application/pdf": b"%PDF"}
"""The first bytes each accepted type starts with."""


@dataclass(frozen=True)
class AttachmentLimits:
    """What one upload may hold: ``max_files`` files, ``max_total_bytes`` in all, and
    ``max_file_bytes`` each (None: only the total applies)."""

    max_files: int
    max_total_bytes: int
    max_file_bytes: int | None = None


LINK_LIMITS = AttachmentLimits(max_files=10, max_total_bytes=25 * MB)
SUBSCRIPTION_LIMITS = AttachmentLimits(max_files=10, max_total_bytes=25 * MB, max_file_bytes=25 * MB)


@dataclass(frozen=True)
class AttachmentFile:
    """A file to upload: the name the service keeps (``originalName``) and its bytes."""

    name: str
    content: bytes

    @classmethod
    def read(cls, path: str | Path) -> AttachmentFile:
        """The file at ``path``; ``InvalidInput`` when it cannot be read."""
        file = Path(path)
        try:
            return cls(file.name, file.read_bytes())
        except OSError as error:
            raise InvalidInput(_("attachment {path!r} cannot be read: {error}").format(
                path=str(path), error=error.strerror or error)) from error


def checked_upload(files: Sequence[AttachmentFile], limits: AttachmentLimits) -> EncodedBody:
    """``files`` as the multipart body of an upload, or ``InvalidInput`` saying which file
    breaks which limit (nothing is sent)."""
    if not files:
        raise InvalidInput(_("no attachment given: upload at least one JPG, PNG or PDF file"))
    if len(files) > limits.max_files:
        raise InvalidInput(_("{count} attachments given: at most {most} files go in one upload").format(
            count=len(files), most=limits.max_files))
    parts = [_part(file, limits) for file in files]
    total = sum(len(file.content) for file in files)
    if total > limits.max_total_bytes:
        raise InvalidInput(_("the attachments hold {size} in all: at most {most} go in one upload").format(
            size=_mb(total), most=_mb(limits.max_total_bytes)))
    return form_files(FIELD, parts)


def _part(file: AttachmentFile, limits: AttachmentLimits) -> FormFile:
    name = file.name.strip()
    if not name or PurePath(name).name != name:
        raise InvalidInput(_("attachment name {name!r} must be a file name (no folder)").format(name=file.name))
    media_type = MEDIA_TYPES.get(PurePath(name).suffix.lower())
    if media_type is None:
        raise InvalidInput(_("attachment {name!r} is not a JPG, PNG or PDF file: only those types are accepted").format(
            name=name))
    if not file.content:
        raise InvalidInput(_("attachment {name!r} is empty").format(name=name))
    if not file.content.startswith(SIGNATURES[media_type]):
        raise InvalidInput(_("attachment {name!r} is named as {media_type} but its content is not").format(
            name=name, media_type=media_type))
    if limits.max_file_bytes is not None and len(file.content) > limits.max_file_bytes:
        raise InvalidInput(_("attachment {name!r} holds {size}: at most {most} per file").format(
            name=name, size=_mb(len(file.content)), most=_mb(limits.max_file_bytes)))
    return FormFile(name, media_type, file.content)


def _mb(size: int) -> str:
    return _("{size} MB").format(size=f"{Decimal(size) / MB:.2f}".removesuffix(".00"))


# ---------------------------------------------------------------- answers


class Attachment(Lenient):
    """An uploaded file as the service answers it; give it back as is in a link's or a
    subscription's ``attachments``."""

    path: Text
    full_path: Text | None = Field(default=None, alias="fullPath")
    original_name: Text | None = Field(default=None, alias="originalName")
    size_in_mb: Decimal | None = Field(default=None, alias="sizeInMB")


class UploadedFiles(Answer):
    """The answer of an upload: ``{message, files}``."""

    message: Text | None = None
    files: list[Attachment]


def parse_uploaded(body: Any) -> UploadedFiles:
    return UploadedFiles.model_validate(unwrap(body))


PARSERS: dict[str, Callable[[Any], object]] = {
    "link.upload_attachments": parse_uploaded,
    "old_link.upload_attachments": parse_uploaded,
    "subscription.upload_attachments": parse_uploaded,
}
