"""A bounded chaos run: every sale ends known, the journal matches the sandbox, nothing charged twice."""


from tests.terminal.chaos import run_chaos


async def test_chaos_run_small(sandbox, tmp_path):
    report = await run_chaos(sandbox, tmp_path, sales=40, seed=11)
    print("chaos:", report.summary())
    assert report.problems == []
    attempts = sum(report.final_outcomes.values())  # refused sales and early kills begin none
    assert report.sales == 40 and 1 <= attempts <= 40
    assert report.final_outcomes.get("unknown", 0) == 0
    assert report.resolved_by_resume + report.resolved_by_manager >= 1
    assert set(report.first_outcomes) <= {"approved", "declined", "failed", "unknown", "crashed", "killed",
                                          "terminal_has_unknown", "order_paid", "order_unresolved",
                                          "earlier_attempt_approved"}
    assert report.payments_in_sandbox >= 3 and report.final_outcomes.get("approved", 0) >= 3
    assert sum(report.manager_decisions.values()) >= 1, "a hurried manager decided at random"
    assert report.rerings >= 3, "cashiers rang unfinished orders again"
    assert len(report.faults) >= 8, "the run drew a wide mix of faults"
    assert report.first_outcomes["killed"] >= 1, "at least one sale's process was really SIGKILLed"
