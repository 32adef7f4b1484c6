"""PIN rules and PIN hashing: only a slow, salted scrypt hash of a PIN is ever stored.

A stored hash is ``scrypt$n=32768,r=8,p=1$<salt>$<key>`` (salt and key in unpadded
URL-safe base64): the parameters travel with the hash, so ``DEFAULT_PARAMS`` can be
raised later and older hashes still verify (``Staff`` rehashes them at the next correct
sign-in). Comparison is constant-time (``hmac.compare_digest``).

With the default parameters one verification costs about 0.12 s of CPU and 32 MiB of
memory on a 2020s x86 core: on purpose, so that a copied staff file cannot be brute-forced
quickly. A 4-digit PIN has only 10,000 values though (about 20 minutes of one core per
hash to try them all), so the real protection of a PIN is the station lockout and keeping
the staff file on the station.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from pos_app.i18n import _
from pos_app.staff.errors import InvalidPin

PIN_MIN_DIGITS = 4
PIN_MAX_DIGITS = 8
_PIN = re.compile(f"[0-9]{{{PIN_MIN_DIGITS},{PIN_MAX_DIGITS}}}")
SALT_BYTES = 16
KEY_BYTES = 32
ALGORITHM = "scrypt"


def check_pin(pin: object) -> str:
    """The PIN itself if it is 4 to 8 ASCII digits; ``InvalidPin`` (a ``ValueError``) otherwise.

    The message never repeats the PIN.
    """
    if not isinstance(pin, str):
        raise InvalidPin(_("a PIN must be text of {low} to {high} digits").format(low=PIN_MIN_DIGITS,
                                                                                 high=PIN_MAX_DIGITS))
    if not _PIN.fullmatch(pin):
        if pin and pin.isascii() and pin.isdigit():
            raise InvalidPin(_("a PIN has {low} to {high} digits, this one has {count}").format(
                low=PIN_MIN_DIGITS, high=PIN_MAX_DIGITS, count=len(pin)))
        raise InvalidPin(_("a PIN is {low} to {high} digits (0-9) and nothing else").format(low=PIN_MIN_DIGITS,
                                                                                   high=PIN_MAX_DIGITS))
    return pin


@dataclass(frozen=True)
class ScryptParams:
    """scrypt's cost: ``n`` (CPU and memory, a power of two), ``r`` (block size), ``p`` (lanes).
    Memory is about ``128 * n * r`` bytes."""

    n: int = 2**15
    r: int = 8
    p: int = 1

    def __post_init__(self) -> None:
        if self.n < 2 or self.n & (self.n - 1) or not 1 <= self.r <= 64 or not 1 <= self.p <= 16:
            # not for people: a programming mistake
            raise ValueError(f"bad scrypt parameters {self}: n must be a power of two > 1, "  # not for people
                             "r 1..64, p 1..16")

    @property
    def cost(self) -> int:
        return self.n * self.r * self.p

    @property
    def maxmem(self) -> int:
        return 128 * self.n * self.r * (self.p + 1) + 1024 * 1024

    def text(self) -> str:
        return f"n={self.n},r={self.r},p={self.p}"


DEFAULT_PARAMS = ScryptParams()
"""About 0.12 s and 32 MiB per verification; raise it here when machines get faster."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _derive(pin: str, salt: bytes, params: ScryptParams, length: int) -> bytes:
    return hashlib.scrypt(pin.encode("ascii"), salt=salt, n=params.n, r=params.r, p=params.p,
                          maxmem=params.maxmem, dklen=length)


def hash_pin(pin: str, params: ScryptParams = DEFAULT_PARAMS) -> str:
    """A new stored hash of a valid PIN, with a fresh random salt."""
    check_pin(pin)
    salt = secrets.token_bytes(SALT_BYTES)
    key = _derive(pin, salt, params, KEY_BYTES)
    return f"{ALGORITHM}${params.text()}${_b64(salt)}${_b64(key)}"


@dataclass(frozen=True)
class StoredHash:
    params: ScryptParams
    salt: bytes
    key: bytes


def parse_hash(stored: str) -> StoredHash:
    """The parts of a stored hash; ``ValueError`` for anything this version cannot verify."""
    try:
        algorithm, params_text, salt_text, key_text = stored.split("$")
        if algorithm != ALGORITHM:
            raise ValueError(_("unknown PIN hash algorithm {name!r}").format(name=algorithm))
        fields = dict(part.split("=", 1) for part in params_text.split(","))
        if set(fields) != {"n", "r", "p"}:
            raise ValueError(_("PIN hash parameters must be n, r and p"))
        params = ScryptParams(n=int(fields["n"]), r=int(fields["r"]), p=int(fields["p"]))
        salt, key = _unb64(salt_text), _unb64(key_text)
    except (ValueError, TypeError) as error:
        raise ValueError(_("unreadable PIN hash: {error}").format(error=error)) from None
    if len(salt) < 8 or len(key) < 16:
        raise ValueError(_("unreadable PIN hash: salt or key too short"))
    return StoredHash(params, salt, key)


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` matches ``stored`` (constant-time comparison of the derived keys)."""
    parsed = parse_hash(stored)
    candidate = _derive(pin, parsed.salt, parsed.params, len(parsed.key))
    return hmac.compare_digest(candidate, parsed.key)


def needs_rehash(stored: str, params: ScryptParams) -> bool:
    """Whether ``stored`` is weaker than ``params`` (so a correct sign-in should upgrade it)."""
    return parse_hash(stored).params.cost < params.cost
