"""Client of the Merchant Payments Service: routes, typed models, errors, money rules.

Qt-free. ``PaymentsClient`` is the one entry point; see ``errors`` for the error tree.
The names below are imported when first used (``pos_app.lazy``): a light module such as
``pos_app.api.money`` or ``pos_app.api.errors`` does not bring httpx and pydantic in.
"""

from typing import TYPE_CHECKING

from pos_app.api.errors import *  # noqa: F403 - the error tree is part of the API (no httpx, no pydantic)
from pos_app.api.errors import __all__ as _errors
from pos_app.lazy import exports

if TYPE_CHECKING:
    from pos_app.api.address import check_base_url
    from pos_app.api.client import PaymentsClient, RetryPolicy
    from pos_app.api.identity import Identity, attempt_in
    from pos_app.api.models import (
        CloseBatchResult,
        Item,
        MessageStatus,
        PayAccepted,
        Payment,
        TerminalResult,
        TransactionEntry,
    )
    from pos_app.api.requests import (
        CaptureRequest,
        CloseBatchRequest,
        CustomValue,
        ItemDraft,
        PayRequest,
        RefundRequest,
        VoidRequest,
    )
    from pos_app.api.routes import ROUTES, Route, RouteTable

_HOMES = {
    "pos_app.api.address": ("check_base_url",),
    "pos_app.api.client": ("PaymentsClient", "RetryPolicy"),
    "pos_app.api.identity": ("Identity", "attempt_in"),
    "pos_app.api.models": ("CloseBatchResult", "Item", "MessageStatus", "PayAccepted", "Payment", "TerminalResult",
                           "TransactionEntry"),
    "pos_app.api.requests": ("CaptureRequest", "CloseBatchRequest", "CustomValue", "ItemDraft", "PayRequest",
                             "RefundRequest", "VoidRequest"),
    "pos_app.api.routes": ("ROUTES", "Route", "RouteTable"),
}
__getattr__ = exports(__name__, _HOMES)
__all__ = [
    "CaptureRequest", "CloseBatchRequest", "CloseBatchResult", "CustomValue", "Identity", "Item", "ItemDraft",
    "MessageStatus", "PayAccepted", "PayRequest", "Payment", "PaymentsClient", "ROUTES", "RefundRequest",
    "RetryPolicy", "Route", "RouteTable", "TerminalResult", "TransactionEntry", "VoidRequest", "attempt_in",
    "check_base_url",
    *_errors,
]
