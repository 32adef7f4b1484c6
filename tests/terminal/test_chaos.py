"""A bounded chaos run: every sale ends known, the journal matches the sandbox, nothing charged twice."""


from tests.terminal.chaos import run_chaos


async def test_chaos_run_small(sandbox, tmp_path):
    report = await run_chaos(sandbox, tmp_path, sales=40, seed=11)
    print("chaos:", report.summary())
    assert report.problems == []
    attempts = sum(report.final_outcomes.values())  # a process killed before it began has none
    assert report.sales == 40 and 40 - report.faults["kill"] <= attempts <= 40
    assert report.final_outcomes.get("unknown", 0) == 0
    assert report.resolved_by_resume + report.resolved_by_manager >= 1
    assert set(report.first_outcomes) <= {"approved", "declined", "failed", "unknown", "crashed", "killed"}
    assert report.final_outcomes.get("approved", 0) >= 5
    assert len(report.faults) >= 8, "the run drew a wide mix of faults"
    assert report.first_outcomes["killed"] >= 1, "at least one sale's process was really SIGKILLed"
