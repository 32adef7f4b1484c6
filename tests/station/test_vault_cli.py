"""``pos-app customer delete|update-link|invite|export|import`` as child processes against
the sandbox: one JSON object, exit 0 done, 1 refused or invalid (nothing sent on bad input)."""

from __future__ import annotations

import csv

import pytest

from pos_app.sandbox.seeded_customers import SEEDED_CUSTOMERS
from tests.terminal.cli_runner import cli_env, run_cli

UNKNOWN = "0123456789abcdef01234567"


def customer_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("customer."))


def links(sandbox):
    return sandbox.sandbox.books["B"].vaults.links


@pytest.fixture
def env(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data")


def add(env, first="Ada", email="ada@example.com", *extra) -> str:
    run = run_cli(env, "customer", "add", "--first-name", first, "--last-name", "Byron", "--email", email, *extra)
    assert run.code == 0, run.payload
    return run.payload["customer"]["id"]


def test_update_link_with_only_a_phone_sends_no_email(sandbox, env):
    ada = add(env, "Ada", "ada@example.com", "--phone", "5551234567")  # the vault has both
    run = run_cli(env, "customer", "update-link", ada, "--phone", "(555) 987-6543", "--expires", "2d")
    assert run.code == 0, run.payload
    assert run.payload["outcome"] == "queued" and run.payload["to"] == {"phone": "(555) 987-6543"}
    assert run.payload["customer"] == ada and run.payload["expires"] == "2 days"
    [link] = links(sandbox)
    assert "email" not in link.body_fields and link.email is None and link.phone_number == "(555) 987-6543"


def test_update_link_without_a_contact_is_refused_and_sends_nothing(sandbox, env):
    ada = add(env)
    before = customer_requests(sandbox)
    run = run_cli(env, "customer", "update-link", ada)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and "--email or --phone" in run.payload["error"]
    bad_phone = run_cli(env, "customer", "update-link", ada, "--phone", "555-123-4567")
    assert bad_phone.code == 1 and "phone" in bad_phone.payload["error"]
    bad_expiry = run_cli(env, "customer", "update-link", ada, "--email", "a@b.co", "--expires", "soon")
    assert bad_expiry.code == 1 and "30m, 24h" in bad_expiry.payload["error"]
    both = run_cli(env, "customer", "update-link", ada, "--email", "a@b.co", "--phone", "5551234567")
    assert both.code == 1 and both.payload["outcome"] == "invalid"
    assert customer_requests(sandbox) == before and links(sandbox) == []


def test_invite_by_email(sandbox, env):
    run = run_cli(env, "customer", "invite", "--email", "new@example.com")
    assert run.code == 0 and run.payload["outcome"] == "queued" and run.payload["to"] == {"email": "new@example.com"}
    assert run.payload["expires"] == "24 hours"
    assert [(q.kind, q.email, q.phone_number) for q in links(sandbox)] == [("invitation", "new@example.com", None)]
    assert run_cli(env, "customer", "invite").code == 1


def test_delete_one_and_several(sandbox, env):
    ids = [add(env, name, f"{name.lower()}@example.com") for name in ("Ada", "Alan", "Grace")]
    one = run_cli(env, "customer", "delete", ids[0])
    assert one.code == 0 and one.payload == {"deleted": [ids[0]]}
    several = run_cli(env, "customer", "delete", ids[1], ids[2])
    assert several.code == 0 and several.payload == {"deleted": ids[1:]}
    assert sandbox.stats()["requests"]["B"]["customer.bulk_delete"] == 1
    assert run_cli(env, "customer", "list").payload["count"] == len(SEEDED_CUSTOMERS)  # the seeded ones only


def test_bulk_delete_partly_refused_says_what_was_deleted(env):
    ada = add(env)
    run = run_cli(env, "customer", "delete", ada, UNKNOWN)
    assert run.code == 1 and run.payload["outcome"] == "refused"
    assert run.payload["deleted"] == [ada] and UNKNOWN in run.payload["failed"]


def test_delete_of_bad_ids_sends_nothing(sandbox, env):
    run = run_cli(env, "customer", "delete", "abc", UNKNOWN)
    assert run.code == 1 and "24-character hexadecimal" in run.payload["error"]
    assert customer_requests(sandbox) == 0


def test_export_then_import_round_trips(sandbox, env, tmp_path):
    add(env, "Ada", "ada@example.com", "--phone", "5551234567")
    add(env, "Alan", "alan@example.com")
    target = tmp_path / "customers.csv"
    exported = run_cli(env, "customer", "export", str(target))
    assert exported.code == 0, exported.payload
    everyone = len(SEEDED_CUSTOMERS) + 2  # every merchant starts with a few customers
    assert exported.payload == {"file": str(target.resolve()), "rows": everyone}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []  # renamed into place
    with target.open(newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header[:3] == ["Unique ID", "First Name", "Last Name"]

    edited = tmp_path / "edited.csv"
    edited.write_text(target.read_text().replace("Alan", "Alonzo"))
    imported = run_cli(env, "customer", "import", str(edited))
    assert imported.code == 0 and imported.payload == {"outcome": "imported", "file": str(edited.resolve()),
                                                      "rows": everyone}
    seeded = {f"{c.first_name} {c.last_name}" for c in SEEDED_CUSTOMERS}
    names = sorted(c["name"] for c in run_cli(env, "customer", "list").payload["customers"] if c["name"] not in seeded)
    assert names == ["Ada Byron", "Alonzo Byron"]  # updated by Unique ID, none added

    again = tmp_path / "again.csv"
    assert run_cli(env, "customer", "export", str(again)).code == 0
    with again.open(newline="") as handle:
        assert [r[:19] for r in csv.reader(handle)][1:] == [
            [cell.replace("Alan", "Alonzo") for cell in r[:19]] for r in rows]


def test_import_with_two_bad_lines_names_both_and_changes_nothing(sandbox, env, tmp_path):
    add(env)
    before = run_cli(env, "customer", "list").payload
    bad = tmp_path / "bad.csv"
    bad.write_text("Unique ID,First Name,Last Name,Email Address\n,Good,Row\n,,Nameless\n,Alan,Turing,nope\n")
    run = run_cli(env, "customer", "import", str(bad))
    assert run.code == 1 and run.payload["outcome"] == "refused"
    assert run.payload["lines"] == [3, 4] and "lines 3, 4" in run.payload["error"]
    assert run_cli(env, "customer", "list").payload == before


def test_files_that_cannot_be_read_or_written_send_nothing(sandbox, env, tmp_path):
    missing = run_cli(env, "customer", "import", str(tmp_path / "nope.csv"))
    assert missing.code == 1 and "cannot read" in missing.payload["error"]
    nowhere = run_cli(env, "customer", "export", str(tmp_path / "no-such-folder" / "x.csv"))
    assert nowhere.code == 1 and "nothing was sent" in nowhere.payload["error"]
    assert customer_requests(sandbox) == 0
