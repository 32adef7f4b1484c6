"""``make bench``: every benchmark, each reporting ratios against a same-run baseline; the
figures and issue 21's goals (``tests/bench/goals.py``) go to ``build/bench.json``."""

import json
from pathlib import Path

from tests.bench import (
    bench_bundle,
    bench_card_on_file,
    bench_cash,
    bench_catalog,
    bench_chaos,
    bench_client,
    bench_history,
    bench_journal,
    bench_polling,
    bench_shift,
    bench_startup,
)
from tests.bench.goals import goals

results = {}
BENCHES = (
    ("client", bench_client),
    ("journal", bench_journal),
    ("polling", bench_polling),
    ("chaos", bench_chaos),
    ("card_on_file", bench_card_on_file),
    ("cash", bench_cash),
    ("catalog", bench_catalog),
    ("startup", bench_startup),
    ("shift", bench_shift),
    ("history", bench_history),
    ("bundle", bench_bundle),
)
for name, bench in BENCHES:
    results[name] = bench.main()
report = {"goals": goals(results), "catalog_300k": bench_catalog.main(["--items", "300000"]), "results": results}
print(json.dumps(report, indent=2, default=str))
out = Path(__file__).resolve().parents[2] / "build" / "bench.json"
out.parent.mkdir(exist_ok=True)
out.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
print(f"written: {out}")
