"""The README documents what the code does: both commands first, every route of the table."""

from pathlib import Path

from pos_app.api.routes import ROUTES

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_readme_opens_with_the_two_commands():
    first_block = README.split("```")[1]
    assert "make run" in first_block and "make test" in first_block


def test_readme_route_table_matches_the_code():
    for route in ROUTES.values():
        row = f"| `{route.name}` | `{route.method} {route.path}` | {route.source} |"
        assert row in README, f"README route table is missing or wrong for {route.name}"


def test_readme_lists_every_refusal_reason():
    from pos_app.terminal.outcomes import Refusal

    missing = [reason.value for reason in Refusal if f"`{reason.value}`" not in README]
    assert not missing, f"README does not list the refusal reasons {missing}"
