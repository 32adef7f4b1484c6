"""``SandboxConfig``: how a sandbox is started. Kept apart from the server so that the
command line can show its defaults without importing the web stack."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SandboxConfig:
    host: str = "127.0.0.1"
    port: int = 0
    allow_remote: bool = False
    key_s: str = "sandbox-key-type-s"
    key_b: str = "sandbox-key-type-b"
    s_delay: tuple[float, float] = (2.0, 4.0)
    latency_ms: int = 0
    seed: int = 0
    faults: dict[str, int | float] = field(default_factory=dict)
