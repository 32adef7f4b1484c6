"""The sandbox's Starlette app: every route of ``ROUTES`` bound to its handler, the
admin routes under ``/_sandbox/``, and the translation between Starlette requests and
the framework-free ``Call``/``Reply`` the handlers use.

Admin routes (no key needed):
    GET  /_sandbox/stats    request counts per merchant and route, payments, messages,
                            terminals (with isActive, also for type B)
    GET  /_sandbox/faults   the knob values
    POST /_sandbox/faults   {knob: value, ...} sets knobs, answers all of them
    POST /_sandbox/inject   {route, status, count=1, code?, text?, body?}: the next
                            ``count`` requests to ``route`` answer ``status`` (with
                            ``body`` as given, when given) before processing
    POST /_sandbox/settle   settles every captured, unsettled payment of both merchants;
                            answers {"settled": N}
    POST /_sandbox/taxes    {merchant, taxes: [...]}: ``GET /public/tax`` answers ``taxes``
                            as given from now on (a tax left out is deleted; items naming
                            it keep naming it)
    POST /_sandbox/item-fields  {merchant, id, fields: {...}}: the item's answers carry
                            ``fields`` as given, over its own (values the item routes refuse)
    POST /_sandbox/reset    fresh state (same seed, knobs as configured)
    POST /_sandbox/payment-link/{id}/pay {amount?}: a payment link's customer pays it
                            (``pos_app.sandbox.links``)
    POST /_sandbox/subscription-fail  {scheduleId, error?}: a pending schedule entry fails
                            as on its date, for a retry to act on (``sandbox.subscriptions``)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route as StarletteRoute

from pos_app.api.routes import ROUTES, Route
from pos_app.api.wire import encode_json
from pos_app.sandbox import (
    ach,
    attachments,
    card_payments,
    catalog_routes,
    customers,
    links,
    payments,
    subscriptions,
    terminal,
    transactions,
)
from pos_app.sandbox.faults import Injection
from pos_app.sandbox.http_server import ABORT
from pos_app.sandbox.protocol import Call, Failure, Reply, StatusFailure, invalid
from pos_app.sandbox.state import Book, Handler, Sandbox
from pos_app.sandbox.validation import Fields
from pos_app.sandbox.vault_csv import HANDLERS as VAULT_CSV_HANDLERS
from pos_app.sandbox.vault_routes import HANDLERS as VAULT_HANDLERS

HANDLERS: dict[str, Handler] = {
    **terminal.HANDLERS,
    **payments.HANDLERS,
    **transactions.HANDLERS,
    **catalog_routes.HANDLERS,
    **customers.HANDLERS,
    **links.HANDLERS,
    **attachments.HANDLERS,
    **VAULT_HANDLERS,
    **VAULT_CSV_HANDLERS,
    **subscriptions.HANDLERS,
    **card_payments.HANDLERS,
    **ach.HANDLERS,
}
if set(HANDLERS) != set(ROUTES):
    raise RuntimeError(f"sandbox handlers do not match ROUTES: {sorted(set(HANDLERS) ^ set(ROUTES))}")

ADMIN_PREFIX = "/_sandbox"


class JsonResponse(Response):
    """JSON through ``encode_json``: Decimal dollars stay exact, floats are refused."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return encode_json(content)


class DroppedAnswer:
    """Sends the ``pos.sandbox.abort`` extension: the server drops the connection."""

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        await send({"type": ABORT})


def _response(reply: Reply) -> Response | DroppedAnswer:
    if reply.dropped:
        return DroppedAnswer()
    if isinstance(reply.body, bytes):  # a CSV: sent as it is, its content-type in the headers
        return Response(reply.body, status_code=reply.status, headers=dict(reply.headers))
    return JsonResponse(reply.body, status_code=reply.status, headers=dict(reply.headers))


async def _call(request: Request) -> Call:
    return Call(
        path=request.url.path,
        query=dict(request.query_params),
        params={k: str(v) for k, v in request.path_params.items()},
        body=await request.body(),
        key=request.headers.get("key-hash"),
        user_agent=request.headers.get("user-agent", ""),
    )


def _service_endpoint(sandbox: Sandbox, route: Route, handler: Handler):
    async def endpoint(request: Request) -> Response | DroppedAnswer:
        reply = sandbox.handle(route, await _call(request), handler)
        latency = sandbox.latency_s()
        if latency > 0:
            await asyncio.sleep(latency)
        return _response(reply)

    return endpoint


def _admin_endpoint(sandbox: Sandbox, action: Callable[[Sandbox, Call], Any]):
    async def endpoint(request: Request) -> Response:
        call = await _call(request)
        with sandbox.lock:
            sandbox.materialize()
            try:
                reply = Reply(200, action(sandbox, call))
            except Failure as failure:
                reply = failure.reply(call.path, sandbox.clock())
        return _response(reply)  # type: ignore[return-value]

    return endpoint


def _set_faults(sandbox: Sandbox, call: Call) -> dict:
    try:
        return sandbox.set_faults(call.json_object())
    except ValueError as exc:
        raise invalid([str(exc)]) from None


def _inject(sandbox: Sandbox, call: Call) -> dict:
    body = call.json_object()
    f = Fields(body)
    route = f.text("route")
    if route is not None and route not in ROUTES:
        f.fail(f"route must be one of {', '.join(ROUTES)}")
    status = body.get("status")
    has_body = "body" in body
    lowest = 100 if has_body else 300
    if isinstance(status, bool) or not isinstance(status, int) or not lowest <= status <= 999:
        f.fail(f"status must be an integer from {lowest} to 999" + ("" if has_body else " (from 100 with a body)"))
    count = body.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        f.fail("count must be a positive integer")
    code = body.get("code")
    if code is not None and (isinstance(code, bool) or not isinstance(code, (int, str))):
        f.fail("code must be a number or a string")
    text = f.text("text", required=False)
    f.check()
    assert route is not None
    sandbox.injections.add(route, Injection(status=status, remaining=count, code=code, text=text,
                                            body=body.get("body"), has_body=has_body))
    return {"pending": sandbox.injections.as_json()}


def _merchant_book(sandbox: Sandbox, f: Fields) -> Book | None:
    code = f.text("merchant")
    if code is not None and code not in sandbox.books:
        f.fail(f"merchant must be one of {', '.join(sandbox.books)}")
        return None
    return None if code is None else sandbox.books[code]


def _set_taxes(sandbox: Sandbox, call: Call) -> dict:
    """The merchant's tax list, answered as given: data the real service may send (a rate of
    1E+30 or "NaN", a tax deleted while items still name it), which no service route makes."""
    f = Fields(call.json_object())
    book = _merchant_book(sandbox, f)
    taxes = f.array("taxes")
    if taxes is not None and not all(isinstance(tax, dict) for tax in taxes):
        f.fail("each entry of taxes must be an object")
    f.check()
    assert book is not None and taxes is not None
    book.taxes = taxes
    return {"taxes": book.taxes}


def _set_item_fields(sandbox: Sandbox, call: Call) -> dict:
    """Fields an item's answers carry as given (a price of 1E+17 dollars, "NaN"): values the
    item routes refuse, which the real service may still send."""
    body = call.json_object()
    f = Fields(body)
    book = _merchant_book(sandbox, f)
    item_id = f.text("id")
    fields = body.get("fields")
    if not isinstance(fields, dict) or not fields:
        f.fail("fields must be a non-empty object")
    f.check()
    assert book is not None and item_id is not None and isinstance(fields, dict)
    item = book.catalog.find(item_id, deleted_ok=True)
    item.wire_fields.update(fields)
    return {"data": book.catalog.json(item, dollars=True)}


def _reset(sandbox: Sandbox, call: Call) -> dict:
    sandbox.reset()
    return {"reset": True}


def build_app(sandbox: Sandbox) -> Starlette:
    """The ASGI app serving ``sandbox``: service routes (static paths before ``{param}`` ones)."""
    ordered = sorted(ROUTES.values(), key=lambda r: bool(r.params))
    routes = [
        StarletteRoute(r.path, _service_endpoint(sandbox, r, HANDLERS[r.name]), methods=[r.method], name=r.name)
        for r in ordered
    ]
    admin: list[tuple[str, str, Callable[[Sandbox, Call], Any]]] = [
        ("GET", "/stats", lambda s, c: s.stats()),
        ("GET", "/faults", lambda s, c: s.knobs.as_json()),
        ("POST", "/faults", _set_faults),
        ("POST", "/inject", _inject),
        ("POST", "/settle", lambda s, c: {"settled": s.settle()}),
        ("POST", "/taxes", _set_taxes),
        ("POST", "/item-fields", _set_item_fields),
        ("POST", "/reset", _reset),
        ("POST", "/payment-link/{id}/pay", links.pay_link),
        ("POST", "/subscription-fail", subscriptions.fail_entry),
    ]
    routes += [
        StarletteRoute(ADMIN_PREFIX + path, _admin_endpoint(sandbox, action), methods=[method])
        for method, path, action in admin
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        failure = StatusFailure(exc.status_code, exc.detail)
        return _response(failure.reply(request.url.path, sandbox.clock()))  # type: ignore[return-value]

    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})
