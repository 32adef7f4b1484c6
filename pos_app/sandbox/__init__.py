"""The built-in sandbox of the Merchant Payments Service: a local stand-in serving
merchant S (type S, asynchronous terminals) and merchant B (type B, synchronous
terminals) at once, with test amounts and fault knobs for the failures a real
service has. Start it with ``SandboxServer`` (``pos_app.sandbox.server``) or
``pos-app sandbox serve``. Never imports Qt.
"""
