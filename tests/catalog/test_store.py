"""The local catalog: search as you type, scanned codes, quick keys, the one atomic write,
threads, and files that are not (or no longer) a catalog this pos-app can use."""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pos_app.catalog import (
    CURRENT_VERSION,
    Catalog,
    CatalogClosed,
    CatalogCorrupt,
    CatalogItem,
    CatalogTooNew,
    TaxRate,
)

T1, T2 = "tax-state", "tax-city"
TAXES = [TaxRate(T1, "State sales tax", Decimal("6.25")), TaxRate(T2, "City tax", Decimal("2.00"))]
WHEN = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def item(n: int, name: str, category: str | None = "Produce", sku: str | None = None, price: int = 199,
         taxes: tuple[str, ...] = (T1,)) -> CatalogItem:
    return CatalogItem(id=f"id-{n}", name=name, sku=sku if sku is not None else f"0{n:010d}5",
                       price_cents=price, category=category, tax_ids=taxes, description=f"{name} desc")


ITEMS = [
    item(1, "Green Apples", sku="012345678905"),
    item(2, "Granny Smith Apples"),
    item(3, "Apple Juice", "Beverages"),
    item(4, "Greek Yogurt", "Dairy & Eggs"),
    item(5, "Crème Brûlée", "Bakery"),
    item(6, "Eggs (dozen)", "Dairy & Eggs"),
    item(7, "Pineapple", sku="123456789012"),
    item(8, "Loyalty card discount", "Deals", price=-100, taxes=()),
    item(9, "Red Peppers"),
    item(10, "Produce Bag", "Household"),
    item(11, "NEAR the Sea", "Books"),
]


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "catalog.sqlite3"


@pytest.fixture
def catalog(path):
    opened = Catalog.open(path)
    opened.replace_all(ITEMS, taxes=TAXES, categories=["Produce", "Dairy & Eggs", "Empty", "Deals"], synced_at=WHEN)
    yield opened
    opened.close()


def names(found: list[CatalogItem]) -> list[str]:
    return [i.name for i in found]


# ---------------------------------------------------------------- opening


def test_open_creates_a_wal_file_with_the_current_schema(path):
    with Catalog.open(path) as catalog:
        assert path.exists()
        assert catalog.count() == 0 and catalog.synced_at() is None and catalog.search("a") == []
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    conn.close()


def test_reopen_after_close_keeps_the_catalog(path, catalog):
    catalog.close()
    with Catalog.open(path) as again:
        assert again.count() == len(ITEMS)
        assert again.synced_at() == WHEN
        assert names(again.search("green")) == ["Green Apples"]
        assert again.taxes() == {t.id: t for t in TAXES}


def test_a_closed_catalog_refuses_every_call(catalog):
    catalog.close()
    catalog.close()  # idempotent
    for call in (lambda: catalog.search("gre"), lambda: catalog.by_code("012345678905"), catalog.count,
                 lambda: catalog.replace_all([], taxes=[], categories=[], synced_at=WHEN)):
        with pytest.raises(CatalogClosed):
            call()


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(path):
    path.parent.mkdir(parents=True)
    junk = b"this is not a database at all, just some text " * 10
    path.write_bytes(junk)
    with pytest.raises(CatalogCorrupt, match="not a database.*sync the catalog again"):
        Catalog.open(path)
    assert path.read_bytes() == junk


def test_another_sqlite_database_is_refused(path):
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(CatalogCorrupt, match="not a pos-app catalog"):
        Catalog.open(path)


def test_a_catalog_from_a_newer_pos_app_is_refused(path, catalog):
    catalog.close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(CatalogTooNew, match="newer pos-app"):
        Catalog.open(path)


def test_a_damaged_catalog_is_reported_as_corrupt(path, catalog):
    catalog.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    for offset in range(page_size, len(data)):  # every page but the header's, overwritten
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    with pytest.raises(CatalogCorrupt, match="damaged"):
        with Catalog.open(path) as damaged:
            damaged.search("green")


# ---------------------------------------------------------------- search


def test_every_typed_word_is_a_prefix(catalog):
    assert names(catalog.search("gre app")) == ["Green Apples"]
    assert names(catalog.search("app gra")) == ["Granny Smith Apples"]
    assert names(catalog.search("GREEN apples")) == ["Green Apples"]


def test_search_ranks_names_that_start_with_the_text_first(catalog):
    # "Apple Juice" starts with "app"; the others only have a word starting with it
    assert names(catalog.search("app")) == ["Apple Juice", "Granny Smith Apples", "Green Apples"]
    assert names(catalog.search("gre")) == ["Greek Yogurt", "Green Apples"]


def test_a_space_after_a_word_means_the_whole_word(path):
    with Catalog.open(path) as catalog:
        catalog.replace_all([item(1, "Redwood Honey"), item(2, "Red Peppers"), item(3, "Eggs (dozen)")],
                            taxes=TAXES, categories=[], synced_at=WHEN)
        assert names(catalog.search("red")) == ["Red Peppers", "Redwood Honey"]
        assert names(catalog.search("red ")) == ["Red Peppers", "Redwood Honey"]  # whole word first, then FTS
        assert names(catalog.search("red ", limit=1)) == ["Red Peppers"]
        assert names(catalog.search("redw")) == ["Redwood Honey"]
        assert names(catalog.search("Eggs (dozen)")) == ["Eggs (dozen)"]
        assert names(catalog.search("eggs (")) == ["Eggs (dozen)"]


def test_search_ignores_case_and_accents(catalog):
    assert names(catalog.search("creme bru")) == ["Crème Brûlée"]
    assert names(catalog.search("CRÈME")) == ["Crème Brûlée"]


def test_search_finds_by_category_after_names(catalog):
    # "Produce Bag" starts with the text; the Produce items follow, in name order
    found = names(catalog.search("produce"))
    assert found[0] == "Produce Bag"
    assert set(found[1:]) == {"Granny Smith Apples", "Green Apples", "Pineapple", "Red Peppers"}
    assert found[1:] == sorted(found[1:])
    assert names(catalog.search("dairy gre")) == ["Greek Yogurt"]


def test_search_by_sku_exact_first_then_prefix(catalog):
    assert names(catalog.search("012345678905")) == ["Green Apples"]
    assert names(catalog.search(" 012345678905 ")) == ["Green Apples"]
    assert names(catalog.search("1234567")) == ["Pineapple"]
    assert "Green Apples" in names(catalog.search("0123"))


def test_an_exact_sku_ranks_above_name_matches(path):
    with Catalog.open(path) as catalog:
        catalog.replace_all([item(1, "4011 Bananas", sku="999"), item(2, "Bananas", sku="4011")],
                            taxes=TAXES, categories=[], synced_at=WHEN)
        assert names(catalog.search("4011")) == ["Bananas", "4011 Bananas"]


@pytest.mark.parametrize("text", ["", " ", "\t\n", "   \u3000 ", "***", '"', "-", ":", "()", "^", "'", "--"])
def test_empty_or_punctuation_only_text_finds_nothing(catalog, text):
    assert catalog.search(text) == []


@pytest.mark.parametrize("text", [
    '"green', 'green"', 'gre*', '*gre', 'gre -app', '-gre', 'name:gre', 'sku:0123', '(gre', 'gre)', 'NEAR(gre app)',
    'gre OR app', 'gre AND', 'NOT gre', 'AND', 'OR', 'NOT', 'NEAR', '{name}: gre', 'gre + app', "eggs (doz",
    "^gre", 'gre""app', "gre'", "a" * 5000, "gre " * 200, "\x00gre", "gre\x00app",
])
def test_fts_syntax_never_raises(catalog, text):
    catalog.search(text)


def test_fts_words_are_plain_words(catalog):
    assert names(catalog.search("NEAR")) == ["NEAR the Sea"]
    assert names(catalog.search("near sea")) == ["NEAR the Sea"]
    assert names(catalog.search('"green')) == ["Green Apples"]
    assert names(catalog.search("eggs (doz")) == ["Eggs (dozen)"]
    assert names(catalog.search("gre-app")) == ["Green Apples"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_searches_without_raising(catalog, text):
    found = catalog.search(text, limit=5)
    assert len(found) <= 5


def test_search_respects_the_limit_and_refuses_a_bad_one(catalog):
    assert len(catalog.search("0", limit=3)) == 3
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="limit"):
            catalog.search("gre", limit=bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- codes, categories, taxes


def test_by_code_is_an_exact_sku_match(catalog):
    assert catalog.by_code("012345678905").name == "Green Apples"
    assert catalog.by_code(" 012345678905\r\n").name == "Green Apples"
    assert catalog.by_code("01234567890") is None  # a prefix is not a code
    assert catalog.by_code("") is None and catalog.by_code("  ") is None
    assert catalog.by_code("Green Apples") is None


def test_by_code_accepts_the_ean13_form_of_a_upc(catalog):
    assert catalog.by_code("0012345678905").name == "Green Apples"


def test_get_by_id(catalog):
    assert catalog.get("id-8") == ITEMS[7]
    assert catalog.get("nope") is None


def test_items_keep_their_fields(catalog):
    deal = catalog.by_code(ITEMS[7].sku)
    assert deal == ITEMS[7]
    assert deal.price_cents == -100 and deal.tax_ids == () and deal.is_discount
    assert catalog.by_code("012345678905").tax_ids == (T1,)


def test_tax_uses_count_the_items_of_each_tax_set_leaving_discounts_out(path):
    with Catalog.open(path) as catalog:
        assert catalog.tax_uses() == []
        extra = [item(20, "Latte", "Cafe", taxes=(T1, T2)), item(21, "Mocha", "Cafe", taxes=(T1, T2)),
                 item(22, "Carrots", taxes=())]
        catalog.replace_all([*ITEMS, *extra], taxes=TAXES, categories=[], synced_at=WHEN)
        assert sorted(catalog.tax_uses()) == [((), 1), ((T1,), 10), ((T1, T2), 2)]  # the discount is not counted


def test_categories_in_service_order_then_extra_ones_without_empty_ones(catalog):
    assert catalog.categories() == ["Produce", "Dairy & Eggs", "Deals", "Bakery", "Beverages", "Books", "Household"]


def test_in_category_lists_items_in_name_order(catalog):
    assert names(catalog.in_category("Dairy & Eggs")) == ["Eggs (dozen)", "Greek Yogurt"]
    assert names(catalog.in_category("Produce", limit=2)) == ["Granny Smith Apples", "Green Apples"]
    assert catalog.in_category("Nothing") == []


def test_taxes_keep_exact_decimal_rates(catalog):
    taxes = catalog.taxes()
    assert list(taxes) == [T1, T2]
    assert taxes[T1].rate == Decimal("6.25") and isinstance(taxes[T1].rate, Decimal)
    assert taxes[T2].rate == Decimal("2.00")


def test_synced_at_is_aware_utc(catalog, path):
    assert catalog.synced_at() == WHEN and catalog.synced_at().tzinfo == UTC
    catalog.replace_all(ITEMS, taxes=TAXES, categories=[],
                        synced_at=datetime(2026, 3, 1, 8, 0, tzinfo=timezone(timedelta(hours=-5))))
    assert catalog.synced_at() == datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="timezone-aware"):
        catalog.replace_all(ITEMS, taxes=TAXES, categories=[], synced_at=datetime(2026, 3, 1))


# ---------------------------------------------------------------- the one write


def test_replace_all_replaces_everything(catalog):
    catalog.replace_all([item(50, "Kombucha", "Beverages")], taxes=TAXES[:1], categories=["Beverages"],
                        synced_at=WHEN + timedelta(hours=1))
    assert catalog.count() == 1
    assert catalog.search("green") == []
    assert names(catalog.search("komb")) == ["Kombucha"]
    assert list(catalog.taxes()) == [T1]
    assert catalog.categories() == ["Beverages"]


def test_a_write_failing_halfway_leaves_the_old_catalog(catalog):
    huge = CatalogItem(id="id-huge", name="Zz huge", sku="1", price_cents=2**70, category=None)  # no SQLite int
    with pytest.raises(OverflowError):
        catalog.replace_all([*ITEMS[:3], huge], taxes=[], categories=[], synced_at=WHEN + timedelta(hours=1))
    assert catalog.count() == len(ITEMS) and catalog.synced_at() == WHEN
    assert names(catalog.search("gre app")) == ["Green Apples"]
    assert list(catalog.taxes()) == [T1, T2]


def test_duplicate_ids_are_refused_before_writing(catalog):
    with pytest.raises(ValueError, match="appears twice"):
        catalog.replace_all([ITEMS[0], ITEMS[0]], taxes=[], categories=[], synced_at=WHEN)
    assert catalog.count() == len(ITEMS)


def test_items_check_their_price_is_cents():
    with pytest.raises(ValueError, match="int of cents"):
        CatalogItem(id="x", name="x", sku=None, price_cents=1.5, category=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="int of cents"):
        CatalogItem(id="x", name="x", sku=None, price_cents=True, category=None)
    with pytest.raises(ValueError, match="rate"):
        TaxRate("t", "t", 6.25)  # type: ignore[arg-type]


@pytest.mark.parametrize("rate,why", [
    ("1E+30", "not from 0 to 100"), ("100.01", "not from 0 to 100"), ("-0.5", "not from 0 to 100"),
    ("8.25001", "more than 4 decimals"), ("NaN", "must be a number"), ("Infinity", "must be a number"),
])
def test_a_tax_rate_is_a_percentage_from_0_to_100_with_a_few_decimals(rate, why):
    with pytest.raises(ValueError, match=why):
        TaxRate("t", "t", Decimal(rate))
    assert TaxRate("t", "t", Decimal("8.8750")).rate == Decimal("8.875")
    assert TaxRate("t", "t", Decimal(100)).rate == 100 and TaxRate("t", "t", Decimal(0)).rate == 0


def test_a_rate_an_older_pos_app_stored_out_of_bounds_is_left_out_not_fatal(catalog, path, caplog):
    with sqlite3.connect(path) as conn:  # what an older pos-app stored for a rate of 1E+30
        conn.execute("UPDATE taxes SET rate = '1E+30' WHERE id = ?", (T2,))
    assert list(catalog.taxes()) == [T1]
    assert "left out until the next sync" in caplog.text and "1E+30" in caplog.text
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE taxes SET rate = 'many' WHERE id = ?", (T2,))
    with pytest.raises(CatalogCorrupt, match="has rate 'many'"):
        catalog.taxes()


# ---------------------------------------------------------------- threads


def test_searches_from_threads_see_whole_catalogs_while_a_sync_writes(path):
    """Readers on other threads never raise, never wait for the write, never see half a sync."""
    old = [item(n, f"Alpha {n:04d}", "Old") for n in range(600)]
    new = [item(n, f"Alpha {n:04d} new", "New") for n in range(600)]
    with Catalog.open(path) as catalog:
        catalog.replace_all(old, taxes=TAXES, categories=[], synced_at=WHEN)
        stop = threading.Event()
        problems: list[str] = []

        def reader() -> None:
            while not stop.is_set():
                try:
                    found = catalog.search("alpha", limit=50)
                    kinds = {i.category for i in found}
                    if len(found) != 50 or len(kinds) != 1:
                        problems.append(f"mixed or short answer: {len(found)} items of {kinds}")
                    catalog.by_code(old[7].sku)
                except Exception as exc:  # noqa: BLE001 - any failure is the finding
                    problems.append(repr(exc))

        threads = [threading.Thread(target=reader) for _ in range(3)]
        for thread in threads:
            thread.start()
        for round_number in range(10):
            catalog.replace_all(new if round_number % 2 else old, taxes=TAXES, categories=[], synced_at=WHEN)
        stop.set()
        for thread in threads:
            thread.join()
        assert problems == []
