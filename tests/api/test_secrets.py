"""The key-hash: refused before any request when it cannot be a header, and its value
taken out of answers that echo it, errors, and log records (tracebacks included)."""

from __future__ import annotations

import logging

import httpx
import pytest

from pos_app.api import errors as e
from pos_app.api.client import PaymentsClient
from pos_app.api.requests import PayRequest
from pos_app.api.secrets import REDACTED, RedactingFilter, Redactor, check_key_hash, key_hash_problem
from tests.api.conftest import FAST_RETRY

KEY = "sandbox-key-type-b"


@pytest.mark.parametrize(("value", "sentence"), [
    ("", "is empty"),
    (KEY + "\n", "has a line break (LF) at the end"),
    (KEY + "\r", "has a carriage return (CR) at the end"),
    (KEY + " ", "has a space at the end"),
    (" " + KEY, "has a space at the start"),
    ("sandbox-key\ttype-b", "has a tab at position 12 of 18"),
    ("sandbox-kéy-type-b", "has a character that is not plain ASCII (letters, digits, symbols) at position 10 of 18"),
    ("sandbox-key\x7ftype-b", "has a control character at position 12 of 18"),
])
def test_a_key_hash_that_cannot_be_a_header_is_refused_with_where_never_the_value(value, sentence):
    assert key_hash_problem(value) == sentence
    with pytest.raises(e.InvalidKeyHash) as refused:
        check_key_hash(value, source="the key-hash in POS_KEY_HASH")
    message = str(refused.value)
    assert message.startswith(f"the key-hash in POS_KEY_HASH {sentence}: ")
    assert "sandbox" not in message and "type-b" not in message


def test_a_printable_ascii_key_hash_is_taken_as_it_is():
    assert check_key_hash('Ab9!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~') == 'Ab9!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'


@pytest.mark.parametrize("key", ["\\x-é", "k\nk"])
def test_the_client_refuses_a_key_hash_that_cannot_be_sent(key):
    with pytest.raises(e.InvalidKeyHash) as refused:
        PaymentsClient("http://127.0.0.1:1", key)
    assert key not in str(refused.value)


def test_the_redactor_finds_the_key_as_json_python_and_urls_quote_it():
    key = 'k"e\\y/1'
    redactor = Redactor([key])
    for text in (f"raw {key}", 'json "k\\"e\\\\y/1"', f"repr {key!r}", "url k%22e%5Cy%2F1"):
        assert key not in redactor.text(text) and REDACTED in redactor.text(text), text
    value = {"message": f"invalid key-hash {key}", "list": [key, 1, None], key: ("x", key)}
    assert redactor.value(value) == {"message": f"invalid key-hash {REDACTED}", "list": [REDACTED, 1, None],
                                     REDACTED: ("x", REDACTED)}
    assert redactor.content(b'{"text": "invalid k\\"e\\\\y/1"}') == b'{"text": "invalid [redacted]"}'


def test_a_log_file_never_holds_the_key_not_even_in_a_traceback(tmp_path):
    path = tmp_path / "pos-app.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(Redactor([KEY])))
    logger = logging.getLogger("tests.secrets")
    logger.addHandler(handler)
    try:
        logger.warning("sent with %s", KEY)
        try:
            raise ValueError(f"Illegal header value {KEY.encode() + b'!'!r}")
        except ValueError:
            logger.exception("the request failed")
        logger.warning("stack of %s", "the caller", stack_info=True)
    finally:
        logger.removeHandler(handler)
        handler.close()
    written = path.read_text(encoding="utf-8")
    assert "Traceback" in written and "Illegal header value" in written
    assert KEY not in written and written.count(REDACTED) == 2


async def test_an_error_answer_that_echoes_the_key_never_carries_it(clients, sandbox):
    client = clients["B"]
    key = sandbox.keys["B"]
    sandbox.inject("terminal.pay", 400, code=101, text=f"invalid key-hash {key}")
    with pytest.raises(e.ServiceError) as refused:
        await client.pay(PayRequest(terminalId="tb-2001", amount=1250), attempt_id="a-echo")
    error = refused.value
    assert error.text == f"invalid key-hash {REDACTED}"
    assert key not in str(error) and key not in repr(error.body)
    sandbox.inject("terminal.list", 401, body={"statusCode": 401, "message": f"key-hash '{key}' is not valid",
                                               "path": f"/v1/terminal?key={key}"})
    with pytest.raises(e.Unauthorized) as unauthorized:
        await client.list_terminals()
    assert key not in f"{unauthorized.value} {unauthorized.value.path} {unauthorized.value.body}"


async def test_a_request_httpx_refuses_to_build_is_not_sent(sandbox):
    """A header value h11 will not write (here set behind the client's back: the client's own
    checks refuse such a key-hash) ends in ``RequestNotBuilt``, and the service saw nothing."""
    async with PaymentsClient(sandbox.base_url, sandbox.keys["B"], retry=FAST_RETRY) as client:
        client._http.headers["x-station-note"] = "two\r\nlines"
        with pytest.raises(e.RequestNotBuilt, match="nothing was sent") as refused:
            await client.pay(PayRequest(terminalId="tb-2001", amount=1250), attempt_id="a-unsent")
        assert isinstance(refused.value.__cause__, httpx.LocalProtocolError)
    assert "terminal.pay" not in sandbox.stats()["requests"]["B"]
