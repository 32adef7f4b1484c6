"""A bounded chaos run: every order ends (most paid, some by card and cash together), the
journal matches the sandbox, no order is charged twice or overpaid, and no cash is taken
while a card part of its order is unknown."""


from tests.terminal.chaos import run_chaos


async def test_chaos_run_small(sandbox, tmp_path):
    report = await run_chaos(sandbox, tmp_path, sales=30, seed=11)
    print("chaos:", report.summary())
    assert report.problems == []
    assert report.sales == 30 == sum(report.ends.values()) and report.ends["paid"] >= 24
    assert report.split_paid >= 3, "orders were paid part by card, part in cash"
    assert report.cash_lines >= 5 and report.card_attempts >= 40
    assert report.final_outcomes.get("unknown", 0) == 0
    assert report.refusals["cash_while_card_unknown"] >= 1, "a card part without an answer held its order's cash"
    assert report.resolved_by_resume + report.resolved_by_manager >= 1
    assert report.payments_in_sandbox >= 20 and report.final_outcomes["approved"] >= 20
    assert sum(report.manager_decisions.values()) >= 1, "a manager decided an unknown"
    assert report.rerings >= 3, "cashiers rang unpaid parts again"
    assert len(report.faults) >= 10, "the run met a wide mix of faults"
    assert report.card_outcomes["killed"] >= 1, "at least one sale's process was really SIGKILLed"
