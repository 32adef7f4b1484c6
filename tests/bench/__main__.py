"""``make bench``: every benchmark, each reporting ratios against a same-run baseline."""

import json

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
print(json.dumps(results, indent=2, default=str))
