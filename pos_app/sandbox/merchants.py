"""The two sandbox merchants and what never changes about them: terminals, taxes, the
test cards their terminals read, and the surcharge disclosure text.

Merchant S ("Corner Market", gateway type S, asynchronous terminals) and merchant B
("Harbor Books", gateway type B, synchronous terminals) are served at once and told
apart by the ``key-hash`` header.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal

from pos_app.api.money import percent_of


@dataclass(frozen=True)
class Terminal:
    id: str
    name: str
    serial_number: str
    is_active: bool = True


ONLINE = Terminal("online", "Online (card not present)", "-")
"""The "device" of a charge through the service's own routes: a card on file, ACH."""


@dataclass(frozen=True)
class Tax:
    id: str
    name: str
    rate: Decimal  # percent: 6.25 means 6.25 %

    def as_json(self) -> dict:
        return {"id": self.id, "name": self.name, "rate": self.rate}


@dataclass(frozen=True)
class Card:
    brand: str
    network: str
    type: str  # credit | debit
    bin: str
    last4: str
    length: int = 16

    @property
    def masked(self) -> str:
        return self.bin + "*" * (self.length - 10) + self.last4


CARDS: tuple[Card, ...] = (
    Card("Visa", "visa", "credit", "424242", "4242"),
    Card("Mastercard", "mastercard", "credit", "555555", "4444"),
    Card("Visa", "visa", "debit", "400005", "5556"),
    Card("American Express", "amex", "credit", "378282", "0005", 15),
    Card("Discover", "discover", "credit", "601111", "1117"),
    Card("Mastercard", "mastercard", "debit", "520082", "8210"),
)
"""The cards the sandbox terminals read, in turn (the starting card depends on the seed)."""

CARDHOLDER = "SANDBOX CARDHOLDER"

CUSTOM_VALUE_KEYS = frozenset({"store", "station", "cashier", "lane", "attempt", "note"})
"""``customValues`` keys configured for both merchants; other keys are refused."""


@dataclass(frozen=True)
class Merchant:
    code: str  # "S" or "B": the gateway type
    key: str
    client_id: str
    name: str
    credit_rate: Decimal  # surcharge percent on credit cards
    terminals: tuple[Terminal, ...]
    taxes: tuple[Tax, ...]

    @property
    def is_async(self) -> bool:
        return self.code == "S"

    def terminal(self, terminal_id: str) -> Terminal | None:
        return next((t for t in self.terminals if t.id == terminal_id), None)

    def terminal_by_serial(self, serial: str) -> Terminal | None:
        return next((t for t in self.terminals if t.serial_number == serial), None)

    def tax_ids(self) -> set[str]:
        return {tax.id for tax in self.taxes}

    def acknowledgment(self) -> dict[str, str]:
        """The surcharge disclosure, one paragraph per key, in display order."""
        rate = f"{self.credit_rate}%"
        return {
            "title": f"{self.name}: notice of credit card surcharge",
            "surcharge": (
                f"We add a surcharge of {rate} of the transaction amount to purchases paid with a "
                "credit card. This surcharge is not greater than our cost of accepting credit cards."
            ),
            "debit": "No surcharge is added to purchases paid with a debit card, a prepaid card or cash.",
            "receipt": "The surcharge is shown as a separate line on your receipt.",
            "consent": (
                f"By paying with a credit card you agree to the {rate} surcharge. "
                "Ask the cashier about payment methods without a surcharge."
            ),
        }


def make_merchants(key_s: str, key_b: str) -> tuple[Merchant, Merchant]:
    """Merchant S and merchant B; their ids are fixed so a restart keeps them."""
    corner = Merchant(
        code="S",
        key=key_s,
        client_id="65a1c0de00000000000000a1",
        name="Corner Market",
        credit_rate=Decimal("3.00"),
        terminals=(
            Terminal("ts-1001", "Lane 1", "P3A-2310-0101"),
            Terminal("ts-1002", "Lane 2", "P3A-2310-0102"),
            Terminal("ts-1003", "Back office", "P3A-2310-0103", is_active=False),
        ),
        taxes=(
            Tax("65a1c0de0000000000007a01", "State sales tax", Decimal("6.25")),
            Tax("65a1c0de0000000000007a02", "City tax", Decimal("2.00")),
            Tax("65a1c0de0000000000007a03", "Prepared food tax", Decimal("1.50")),
        ),
    )
    harbor = Merchant(
        code="B",
        key=key_b,
        client_id="65a1c0de00000000000000b2",
        name="Harbor Books",
        credit_rate=Decimal("2.50"),
        terminals=(
            Terminal("tb-2001", "Front desk", "B10-77-0201"),
            Terminal("tb-2002", "Cafe counter", "B10-77-0202"),
            Terminal("tb-2003", "Old counter", "B10-77-0203", is_active=False),
        ),
        taxes=(
            Tax("65a1c0de0000000000007b01", "State sales tax", Decimal("6.25")),
            Tax("65a1c0de0000000000007b02", "City tax", Decimal("2.00")),
            Tax("65a1c0de0000000000007b03", "Cultural district levy", Decimal("0.75")),
        ),
    )
    return corner, harbor


def first_card_index(seed: int, merchant_code: str) -> int:
    """Where a merchant's card cycle starts, so different seeds read different cards first."""
    return random.Random(f"{seed}:{merchant_code}:cards").randrange(len(CARDS))


def surcharge_for(merchant: Merchant, card: Card, base_cents: int) -> int:
    """The surcharge on a card sale: the merchant credit rate on credit cards, none on debit."""
    return percent_of(base_cents, merchant.credit_rate) if card.type == "credit" else 0


def card_for_bin(bin_digits: str) -> Card | None:
    return next((card for card in CARDS if bin_digits.startswith(card.bin)), None)


def brand_for_bin(bin_digits: str) -> str:
    """The brand of a BIN the sandbox has no test card for, from its leading digits."""
    if bin_digits[:2] in ("34", "37"):
        return "American Express"
    if bin_digits[:1] == "4":
        return "Visa"
    if bin_digits[:1] == "5" or bin_digits[:2] == "22":
        return "Mastercard"
    if bin_digits[:1] == "6":
        return "Discover"
    return "Unknown"
