"""The customer vault CSV routes (reference 4.4): export, template and import, over the
merchant's ``Vaults``.

- Export: ``text/csv``, one row per live vault, the reference's columns in order; ``Date``
  is the last update as MM/DD/YYYY hh:mm:ss in the ``timezone`` query's zone (UTC by
  default). The sandbox merchants have no custom fields, so no column follows ``Date``. ZIP
  codes are not exported.
- Template: the first 19 columns and ``Date`` (creation time), one row per live vault with
  its Unique ID, so that uploading it again updates those customers.
- Import: multipart field ``file``; columns read by position, the first row skipped; a
  Unique ID updates that customer (empty cells keep its values), none creates one. All or
  nothing: any invalid row refuses the file with 400, code 900, the text naming every
  failing line (the header is line 1) and one message per problem (``Line 3: …``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pos_app.api.money import PHONE_PATTERN
from pos_app.sandbox.customers import GENDERS, OBJECT_ID
from pos_app.sandbox.multipart import read_parts
from pos_app.sandbox.protocol import Call, Reply, ServiceFailure, invalid
from pos_app.sandbox.validation import EMAIL_PATTERN
from pos_app.sandbox.vaults import Vault

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

PERSON_COLUMNS = (
    "Unique ID", "First Name", "Last Name", "Email Address", "Phone Number", "Date of Birth", "Gender",
    "Company Name", "External Identifier",
    "Billing Address Country", "Billing Address City", "Billing Address State", "Billing Address 1",
    "Billing Address 2",
    "Shipping Address Country", "Shipping Address City", "Shipping Address State", "Shipping Address 1",
    "Shipping Address 2",
)
EXPORT_COLUMNS = (*PERSON_COLUMNS, "Payment Method", "Last 4 Digits", "Date")
TEMPLATE_COLUMNS = (*PERSON_COLUMNS, "Date")
PERSON_FIELDS = ("firstName", "lastName", "email", "phoneNumber", "dateOfBirth", "gender", "companyName",
                 "externalId")
"""The vault fields of columns 2-9, in order."""
ADDRESS_PARTS = ("country", "city", "state", "address", "address2")
"""The address fields of columns 10-14 (billing) and 15-19 (shipping), in order."""
CSV_TYPE = "text/csv; charset=utf-8"


def _when(epoch_seconds: float, zone: ZoneInfo) -> str:
    return datetime.fromtimestamp(epoch_seconds, UTC).astimezone(zone).strftime("%m/%d/%Y %H:%M:%S")


def _zone(call: Call) -> ZoneInfo:
    name = call.query.get("timezone") or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid([f"timezone must be an IANA time zone name, got {name}"]) from None


def _dob_out(value: str) -> str:
    """A stored date of birth (ISO) as the import reads it back (MM/DD/YYYY)."""
    try:
        return date.fromisoformat(value).strftime("%m/%d/%Y")
    except ValueError:
        return value


def _person(vault: Vault) -> list[str]:
    fields = vault.fields
    row = [vault.id, *(str(fields.get(name, "")) for name in PERSON_FIELDS)]
    row[5] = _dob_out(row[5])
    for kind in ("billingAddress", "shippingAddress"):
        address = fields.get(kind) or {}
        row += [str(address.get(part, "")) for part in ADDRESS_PARTS]
    return row


def _csv(header: tuple[str, ...], rows: Iterator[list[str]]) -> Reply:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return Reply(200, out.getvalue().encode(), headers={"content-type": CSV_TYPE})


def _live(book: Book) -> list[Vault]:
    return sorted((v for v in book.vaults.by_id.values() if v.deleted_at is None), key=lambda v: (v.created_at, v.id))


def _export(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    zone = _zone(call)

    def rows() -> Iterator[list[str]]:
        for vault in _live(book):
            default = next((m for m in vault.methods if m.id == vault.default_id), None)
            kind = "" if default is None else ("ACH" if default.type == "ach" else default.brand)
            yield [*_person(vault), kind, default.last4 if default else "", _when(vault.updated_at, zone)]

    return _csv(EXPORT_COLUMNS, rows())


def _template(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    zone = _zone(call)
    return _csv(TEMPLATE_COLUMNS, ([*_person(v), _when(v.created_at, zone)] for v in _live(book)))


# ---------------------------------------------------------------- import


def _uploaded_file(call: Call) -> bytes:
    """The multipart field ``file``."""
    for part in read_parts(call.body, "file"):
        if part.field == "file":
            return part.content
    raise invalid(["file should not be empty (send it as multipart field file)"])


def _rows(content: bytes) -> list[tuple[int, list[str]]]:
    """Each row after the first with the file line it starts on; blank rows left out."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise invalid(["file must be a UTF-8 CSV"]) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for index, row in enumerate(reader):
            if index and any(cell.strip() for cell in row):
                rows.append((line, [cell.strip() for cell in row]))
            line = reader.line_num + 1
    except csv.Error as error:
        raise ServiceFailure(400, 900, f"Invalid rows at lines {line}", [f"Line {line}: {error}"]) from None
    return rows


def _row_problems(book: Book, cells: list[str]) -> list[str]:
    cells = (cells + [""] * len(PERSON_COLUMNS))[: len(PERSON_COLUMNS)]
    unique_id, first, last, email, phone, born, gender = cells[:7]
    problems = []
    if unique_id:
        vault = book.vaults.by_id.get(unique_id) if OBJECT_ID.fullmatch(unique_id) else None
        if vault is None or vault.deleted_at is not None:
            problems.append(f"Unique ID {unique_id} is not a customer")
    if not first:
        problems.append("First Name is required")
    if not last:
        problems.append("Last Name is required")
    if email and not EMAIL_PATTERN.fullmatch(email):
        problems.append("Email Address must be an email")
    if phone and not PHONE_PATTERN.fullmatch(phone):
        problems.append(f"Phone Number must match {PHONE_PATTERN.pattern} regular expression")
    if born and _dob_in(born) is None:
        problems.append("Date of Birth must be a date MM/DD/YYYY")
    if gender and gender not in GENDERS:
        problems.append(f"Gender must be one of the following values: {', '.join(GENDERS)}")
    for index in (9, 14):
        if cells[index] and cells[index] not in ("US", "CA"):
            problems.append(f"{PERSON_COLUMNS[index]} must be one of the following values: US, CA")
    return problems


def _dob_in(text: str) -> str | None:
    try:
        return datetime.strptime(text, "%m/%d/%Y").date().isoformat()
    except ValueError:
        return None


def _apply(sandbox: Sandbox, book: Book, cells: list[str]) -> None:
    cells = (cells + [""] * len(PERSON_COLUMNS))[: len(PERSON_COLUMNS)]
    now = sandbox.clock()
    kept = {name: value for name, value in zip(PERSON_FIELDS, cells[1:9], strict=True) if value}
    if "dateOfBirth" in kept:
        kept["dateOfBirth"] = _dob_in(kept["dateOfBirth"]) or kept["dateOfBirth"]
    if cells[0]:
        vault = book.vaults.by_id[cells[0]]
        vault.fields.update(kept)  # an empty cell keeps the customer's value
        vault.updated_at = now
    else:
        vault = Vault(id=sandbox.new_id(), fields=kept, created_at=now, updated_at=now)
        book.vaults.by_id[vault.id] = vault
    for kind, start in (("billingAddress", 9), ("shippingAddress", 14)):
        given = {part: value for part, value in zip(ADDRESS_PARTS, cells[start:start + 5], strict=True) if value}
        if given:
            vault.fields[kind] = {**(vault.fields.get(kind) or {}), **given}


def _import(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    rows = _rows(_uploaded_file(call))
    failures = [(line, problem) for line, cells in rows for problem in _row_problems(book, cells)]
    if failures:
        lines = sorted({line for line, _ in failures})
        raise ServiceFailure(400, 900, f"Invalid rows at lines {', '.join(map(str, lines))}",
                             [f"Line {line}: {problem}" for line, problem in failures])
    for _, cells in rows:  # all or nothing: nothing is applied before every row passed
        _apply(sandbox, book, cells)
    return Reply(200, {"success": True})


HANDLERS: dict[str, Callable[[Sandbox, Book, Call], Reply]] = {
    "customer.export": _export,
    "customer.template": _template,
    "customer.import": _import,
}
