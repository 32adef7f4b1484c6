"""The saved cart: round trip, atomic saves, files that cannot be used, and a killed process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from pos_app.cart import Cart, CartCorrupt, CartSaveError, CartStore, CartVersionUnknown, OrderCustomer
from pos_app.cart.store import decode, encode
from pos_app.catalog import CatalogItem, TaxRate

ROOT = Path(__file__).resolve().parents[2]
ITEM = CatalogItem(id="id-1", name="Crème brûlée ☕", sku="012345678905", price_cents=450, category="Cafe",
                   tax_ids=("t1", "t2"))
DEAL = CatalogItem(id="id-2", name="Coupon", sku=None, price_cents=-200, category="Deals")
RATES = {"t1": TaxRate("t1", "State sales tax", Decimal("6.25")), "t2": TaxRate("t2", "City tax", Decimal("2.00"))}


@pytest.fixture
def store(tmp_path):
    return CartStore(tmp_path / "data" / "cart.json", clock=lambda: datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC))


def sample_cart() -> Cart:
    cart = Cart()
    removed = cart.add(CatalogItem(id="id-0", name="Gone", sku=None, price_cents=100, category=None))
    cart.add(ITEM, 3, rates=RATES)
    cart.add(DEAL)
    cart.remove(removed.line_id)
    return cart


def test_no_file_means_no_cart(store):
    assert store.load() is None


def test_round_trip_keeps_everything(store):
    cart = sample_cart()
    store.save(cart)
    loaded = store.load()
    assert loaded is not None
    assert loaded.order_key == cart.order_key
    assert loaded.lines == cart.lines
    assert loaded.next_line_id == cart.next_line_id == 4
    assert loaded.known_rates == cart.known_rates == RATES
    assert loaded.add(ITEM).line_id == 2  # merges into the restored line
    assert loaded.add(CatalogItem(id="id-9", name="New", sku=None, price_cents=5, category=None)).line_id == 4


def test_the_file_is_json_with_integers_only(store):
    store.save(sample_cart())
    document = json.loads(store.path.read_text("utf-8"), parse_float=lambda text: pytest.fail(f"float {text}"))
    assert document["format"] == "pos-app cart" and document["version"] == 3 and document["customer"] is None
    assert document["taxes"] == [{"id": "t1", "name": "State sales tax", "rate": "6.25"},
                                 {"id": "t2", "name": "City tax", "rate": "2.00"}]
    line = document["lines"][0]
    assert line["unit_cents"] == 450 and line["quantity"] == 3 and line["tax_ids"] == ["t1", "t2"]
    assert document["lines"][1]["unit_cents"] == -200 and document["lines"][1]["sku"] is None


def test_an_empty_cart_keeps_its_order_key(store):
    cart = Cart()
    store.save(cart)
    assert store.load().order_key == cart.order_key


def test_on_change_saves_every_change(store):
    cart = Cart(on_change=store.save)
    line = cart.add(ITEM)
    assert store.load().lines == (line,)
    cart.set_quantity(line.line_id, 7)
    assert store.load().lines[0].quantity == 7
    key = cart.order_key
    cart.clear()
    restored = store.load()
    assert restored.is_empty and restored.order_key != key


def test_saving_on_another_thread_while_the_cart_changes_writes_whole_carts(store):
    """The station saves on its disk thread while the loop keeps changing the cart."""
    cart = Cart()
    stop = threading.Event()
    encoded: list[bytes] = []

    def saver() -> None:
        while not stop.is_set():
            encoded.append(encode(cart))
            store.save(cart)

    thread = threading.Thread(target=saver)
    thread.start()
    try:
        for n in range(3000):
            line = cart.add(CatalogItem(id=f"id-{n % 7}", name="x", sku=None, price_cents=100 + n % 7, category=None))
            if n % 5 == 0:
                cart.set_quantity(line.line_id, 0)
            if n % 50 == 0:
                cart.clear()
                time.sleep(0.001)  # let the saver in
    finally:
        stop.set()
        thread.join()
    assert len(encoded) > 3
    for data in encoded:
        decode(data)  # never CartCorrupt: each is one snapshot
    assert store.load() is not None


def test_a_failed_rename_keeps_the_previous_file(store, monkeypatch):
    cart = sample_cart()
    store.save(cart)
    before = store.path.read_bytes()

    def crash(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    cart.add(ITEM)
    with pytest.raises(CartSaveError, match="previously saved cart is kept"):
        store.save(cart)
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    assert [p.name for p in store.path.parent.iterdir()] == ["cart.json"]  # no temp file left
    assert store.load().lines == decode(before).lines


def test_a_failed_write_keeps_the_previous_file(store, monkeypatch):
    store.save(sample_cart())
    before = store.path.read_bytes()

    def full(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(CartSaveError):
        store.save(Cart())
    monkeypatch.undo()
    assert store.path.read_bytes() == before


def test_leftover_temp_files_are_removed_on_load(store):
    store.save(sample_cart())
    leftover = store.path.with_name(".cart.json.tmp-99999-1")
    leftover.write_bytes(b'{"half": ')
    assert store.load() is not None
    assert not leftover.exists()


def corrupt_cases() -> list[tuple[str, bytes]]:
    good = json.loads(encode(sample_cart()))

    def variant(**changes: object) -> bytes:
        return json.dumps({**good, **changes}).encode()

    line = good["lines"][0]
    return [
        ("empty", b""),
        ("truncated", encode(sample_cart())[:40]),
        ("not json", b"\x00\xff garbage"),
        ("a list", b"[1, 2]"),
        ("other format", variant(format="something else")),
        ("float money", variant(lines=[{**line, "unit_cents": 4.5}])),
        ("bool quantity", variant(lines=[{**line, "quantity": True}])),
        ("zero quantity", variant(lines=[{**line, "quantity": 0}])),
        ("huge quantity", variant(lines=[{**line, "quantity": 10**6}])),
        ("taxed discount", variant(lines=[{**line, "unit_cents": -5}])),
        ("missing field", variant(lines=[{k: v for k, v in line.items() if k != "sku"}])),
        ("extra field", variant(extra=1)),
        ("duplicate line ids", variant(lines=[line, line])),
        ("next id too low", variant(next_line_id=1)),
        ("blank order key", variant(order_key="")),
        ("NaN", encode(sample_cart()).replace(b'"quantity":3', b'"quantity":NaN')),
        ("price beyond any item", variant(lines=[{**line, "unit_cents": 10**17}])),
        ("taxes missing", json.dumps({k: v for k, v in good.items() if k != "taxes"}).encode()),
        ("rate as a number", variant(taxes=[{**good["taxes"][0], "rate": 6}])),
        ("rate out of bounds", variant(taxes=[{**good["taxes"][0], "rate": "1E+30"}])),
        ("rate no number", variant(taxes=[{**good["taxes"][0], "rate": "NaN"}])),
        ("rate not decimal", variant(taxes=[{**good["taxes"][0], "rate": "six"}])),
        ("tax without name", variant(taxes=[{"id": "t1", "rate": "6.25"}])),
    ]


@pytest.mark.parametrize(("case", "data"), corrupt_cases(), ids=[c for c, _ in corrupt_cases()])
def test_a_corrupt_file_is_kept_aside_with_a_clear_error(store, case, data):
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(data)
    with pytest.raises(CartCorrupt) as caught:
        store.load()
    kept = store.path.with_name("cart.json.corrupt-20260301T123005Z")
    assert caught.value.kept_at == kept
    assert str(kept) in str(caught.value) and "cart" in str(caught.value)
    assert kept.read_bytes() == data
    assert not store.path.exists()
    assert store.load() is None


def test_an_unknown_version_is_kept_aside(store):
    store.path.parent.mkdir(parents=True)
    data = json.dumps({**json.loads(encode(sample_cart())), "version": 4}).encode()
    store.path.write_bytes(data)
    with pytest.raises(CartVersionUnknown, match="version 4.*reads versions 1, 2, 3.*newer pos-app") as caught:
        store.load()
    assert caught.value.kept_at.read_bytes() == data


def test_a_version_1_cart_still_loads_with_no_rates_known(store):
    good = json.loads(encode(sample_cart()))
    old = {k: v for k, v in good.items() if k not in ("taxes", "customer")} | {"version": 1}  # as written before
    store.path.parent.mkdir(parents=True)
    store.path.write_text(json.dumps(old), "utf-8")
    loaded = store.load()
    assert loaded.order_key == good["order_key"] and loaded.units == 4 and dict(loaded.known_rates) == {}
    assert loaded.refresh_rates(RATES) and loaded.known_rates == RATES  # the counter does this at a restore
    store.save(loaded)
    assert json.loads(store.path.read_text("utf-8"))["version"] == 3


def test_the_attached_customer_is_saved_and_a_version_2_cart_loads_without_one(store):
    cart = sample_cart()
    jane = OrderCustomer("65f0aa11bb22cc33dd44ee55", "Jane Roe", "jane@example.com", "555-123-4567")
    cart.attach_customer(jane)
    store.save(cart)
    loaded = store.load()
    assert loaded.customer == jane and loaded.order_key == cart.order_key and loaded.lines == cart.lines
    loaded.attach_customer(None)
    assert loaded.customer is None and loaded.lines == cart.lines
    loaded.attach_customer(jane)
    loaded.clear()  # a new order: nobody attached
    assert loaded.customer is None
    two = {k: v for k, v in json.loads(encode(sample_cart())).items() if k != "customer"} | {"version": 2}
    store.path.write_text(json.dumps(two), "utf-8")
    assert store.load().customer is None
    broken = json.loads(encode(cart)) | {"customer": {"id": "", "name": "Jane Roe", "email": None, "phone": None}}
    store.path.write_text(json.dumps(broken), "utf-8")
    with pytest.raises(CartCorrupt, match="customer.id"):
        store.load()


def test_a_cart_that_cannot_be_used_is_kept_aside_on_request(store):
    assert store.keep_aside() is None  # no file
    store.save(sample_cart())
    data = store.path.read_bytes()
    kept = store.keep_aside()
    assert kept == store.path.with_name("cart.json.unusable-20260301T123005Z") and kept.read_bytes() == data
    assert not store.path.exists() and store.load() is None


def test_two_corrupt_files_in_one_second_are_both_kept(store):
    store.path.parent.mkdir(parents=True)
    for data in (b"first", b"second"):
        store.path.write_bytes(data)
        with pytest.raises(CartCorrupt):
            store.load()
    kept = sorted(p.name for p in store.path.parent.iterdir())
    assert kept == ["cart.json.corrupt-20260301T123005Z", "cart.json.corrupt-20260301T123005Z-1"]


# ---------------------------------------------------------------- a killed process


def start_worker(path: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.cart.cart_worker", str(path), mode],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_the_cart_is_restored_after_the_process_is_killed(tmp_path):
    path = tmp_path / "cart.json"
    worker = start_worker(path, "ready")
    try:
        line = worker.stdout.readline()
        assert line.startswith("saved "), worker.stderr.read()
        order_key = line.split()[1]
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    assert worker.returncode == -signal.SIGKILL
    cart = CartStore(path).load()
    assert cart is not None and cart.order_key == order_key
    assert [(ln.name, ln.quantity, ln.unit_cents) for ln in cart.lines] == [
        ("Oat milk Latte", 2, 450), ("The Quiet Harbor", 1, 1999), ("Book club discount", 1, -300)
    ]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("delay", [0.05, 0.13, 0.31])
def test_a_process_killed_while_saving_leaves_a_whole_cart(tmp_path, delay):
    path = tmp_path / "cart.json"
    worker = start_worker(path, "churn")
    try:
        assert worker.stdout.readline().strip() == "go", worker.stderr.read()
        time.sleep(delay)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    cart = CartStore(path).load()  # never CartCorrupt: every save replaced a whole file
    assert cart is not None and cart.order_key.startswith("cart-")
    assert not list(tmp_path.glob(".cart.json.tmp-*"))
