"""A bounded card-on-file chaos run: lost answers, 5xx, resets, cancelled and SIGKILLed charges;
every charge ends known, the journal matches the sandbox, nothing is charged twice."""

from tests.terminal.card_on_file_chaos import run_card_on_file_chaos


async def test_card_on_file_chaos_run_small(sandbox, tmp_path):
    report = await run_card_on_file_chaos(sandbox, tmp_path, charges=32, customers=4, seed=11)
    print("card-on-file chaos:", report.summary())
    assert report.problems == []
    assert report.double_charges == 0 and report.lost_outcomes == 0
    assert report.charges == 32 and report.final_outcomes.get("unknown", 0) == 0
    assert report.final_outcomes.get("approved", 0) >= 3 and report.payments_in_sandbox >= 3
    assert len(report.faults) >= 7, "the run drew a wide mix of faults"
    assert report.recharges >= 2, "unfinished orders were charged again"
    assert report.first_outcomes["unknown"] >= 1, "some answers were lost"
    assert report.first_outcomes["killed"] >= 1, "at least one charge's process was really SIGKILLed"
