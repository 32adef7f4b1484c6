"""Build a store's installer folder, its Linux tarball, and check them (``make package``).

    .venv/bin/python packaging/build.py --store demo [--check]

1. The store profile ``packaging/stores/<store>.toml`` is checked with the app's own
   config model (``pos_app.config.check_store_profile``); a bad one stops the build.
2. The icon ``resources/icons/app.svg`` is rendered to ``build/packaging/pos-app.png``
   (256 px: the .desktop icon; PyInstaller makes the executables' icons from it) and
   ``pos-app.ico`` (the Inno Setup installer's).
3. PyInstaller builds ``dist/<store>/`` from ``packaging/pos_app.spec`` (Babel's locale
   data cut to its languages and the profile's ``locale``'s); the profile is copied next
   to the executables as ``store-profile.toml``.
4. On Linux: ``dist/<store>-<version>-linux-x86_64.tar.xz`` (xz: a fifth smaller than gzip,
   unpacked in about 2 s) holds that folder as
   ``pos-app/``, with ``pos-app.desktop``, ``pos-app.png`` and ``INSTALL.txt``.
5. The sizes (unpacked, compressed) and the build time are written to
   ``dist/<store>-bundle.json``; ``--check`` also runs ``dist/<store>/pos-app --self-test``
   and fails when a budget is missed or the self-test does not pass.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "packaging"
PROFILE_FILE = "store-profile.toml"  # pos_app.profile.BAKED_PROFILE_NAME
MB = 1024 * 1024
BUDGET_UNPACKED_MB = 120.0
BUDGET_COMPRESSED_MB = 50.0
SELF_TEST_TIMEOUT_S = 180.0


class BuildFailed(Exception):
    """The build or a check failed; the message says what and what to do."""


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def check_profile(store: str) -> tuple[Path, str | None]:
    """The store's profile file, checked as the installed app will load it, and its locale."""
    from pos_app.config import check_store_profile
    from pos_app.profile import ConfigError

    path = PACKAGING / "stores" / f"{store}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in (PACKAGING / "stores").glob("*.toml")))
        raise BuildFailed(f"no store profile {path}; the stores are: {known}")
    try:
        config = check_store_profile(path)
    except ConfigError as error:
        raise BuildFailed(f"the store profile {path.name} cannot be used: {error}") from None
    return path, config.locale


def render_icon(target: Path, size: int = 256) -> Path:
    """``resources/icons/app.svg`` as a square PNG (offscreen Qt: no display needed)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - QPainter needs one
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(ROOT / "resources" / "icons" / "app.svg")).render(painter)
    painter.end()
    target.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(target)):
        raise BuildFailed(f"cannot write the icon {target}")
    from PIL import Image  # the build's Pillow (fpdf2's dependency): the .ico of the Inno Setup script

    Image.open(target).save(target.with_suffix(".ico"), sizes=[(256, 256), (48, 48), (32, 32), (16, 16)])
    return target


def run_pyinstaller(store: str, icon: Path, locale: str | None) -> Path:
    env = {**os.environ, "POS_BUNDLE_NAME": store, "POS_BUNDLE_ICON": str(icon), "POS_BUNDLE_LOCALE": locale or ""}
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
               "--distpath", str(DIST), "--workpath", str(ROOT / "build" / "pyinstaller"),
               str(PACKAGING / "pos_app.spec")]
    if subprocess.run(command, cwd=ROOT, env=env).returncode != 0:
        raise BuildFailed("PyInstaller failed (its output is above)")
    folder = DIST / store
    if not (folder / executable_name()).is_file():
        raise BuildFailed(f"PyInstaller left no {folder / executable_name()}")
    return folder


def executable_name() -> str:
    return "pos-app.exe" if sys.platform == "win32" else "pos-app"


def unpacked_bytes(folder: Path) -> int:
    """Bytes of the regular files (symlinks count nothing), as an installed folder holds them."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=pos-app ({store})
Comment=Cashier: card payments through the Merchant Payments Service
Exec=/opt/pos-app/pos-app
Icon=/opt/pos-app/pos-app.png
Terminal=false
Categories=Office;Finance;
StartupWMClass=pos-app
"""

INSTALL_NOTE = """pos-app {version} for {store} (Linux x86_64)

Install (or upgrade: the data folder, ~/.local/share/pos-app, is not in here and stays):
    sudo rm -rf /opt/pos-app
    sudo tar -xJf {tarball} -C /opt
    sudo ln -sf /opt/pos-app/pos-app /usr/local/bin/pos-app
    sudo cp /opt/pos-app/pos-app.desktop /usr/share/applications/
Needs: glibc 2.31 or newer, X11 (xcb), CUPS for receipts (libcups), D-Bus and a Secret
Service keyring (GNOME Keyring or KWallet) for the key-hash.
Check it:   pos-app --self-test
Provision:  see packaging/README.md (pos-app setup --key-from-stdin, pos-app staff add).
Uninstall:  sudo rm -rf /opt/pos-app /usr/local/bin/pos-app /usr/share/applications/pos-app.desktop
"""


def linux_tarball(folder: Path, store: str, icon: Path) -> Path:
    """``<store>-<version>-linux-x86_64.tar.xz``: the folder as ``pos-app/`` with the
    desktop entry, the icon and the install note."""
    name = f"{store}-{version()}-linux-{platform.machine()}.tar.xz"
    shutil.copy(icon, folder / "pos-app.png")
    (folder / "pos-app.desktop").write_text(DESKTOP_ENTRY.format(store=store), encoding="utf-8")
    (folder / "INSTALL.txt").write_text(INSTALL_NOTE.format(version=version(), store=store, tarball=name),
                                        encoding="utf-8")
    tarball = DIST / name
    with tarfile.open(tarball, "w:xz", preset=6) as archive:
        archive.add(folder, arcname="pos-app")
    return tarball


def self_test(folder: Path) -> dict[str, object]:
    """``pos-app --self-test`` of the built folder; its JSON summary."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POS_")}  # the bundle's own profile
    try:
        done = subprocess.run([str(folder / executable_name()), "--self-test"], capture_output=True, text=True,
                              timeout=SELF_TEST_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise BuildFailed(f"the bundle's self-test did not end within {SELF_TEST_TIMEOUT_S:.0f} s") from None
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise BuildFailed(f"the bundle's self-test failed (exit {done.returncode}); its output is above")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def build(store: str, *, check: bool) -> dict[str, object]:
    started = time.monotonic()
    profile, locale = check_profile(store)
    icon = render_icon(WORK / "pos-app.png")
    folder = run_pyinstaller(store, icon, locale)
    shutil.copy(profile, folder / PROFILE_FILE)
    if (DIST / f"{store}.app").is_dir():  # macOS: next to the executables inside the .app too
        shutil.copy(profile, DIST / f"{store}.app" / "Contents" / "MacOS" / PROFILE_FILE)
    built_s = time.monotonic() - started
    figures: dict[str, object] = {"store": store, "version": version(), "folder": str(folder.relative_to(ROOT)),
                                  "build_s": round(built_s, 1)}
    if sys.platform.startswith("linux"):
        tarball = linux_tarball(folder, store, icon)
        figures.update(tarball=str(tarball.relative_to(ROOT)), compressed_mb=round(tarball.stat().st_size / MB, 1),
                       tarball_s=round(time.monotonic() - started - built_s, 1))
    figures["unpacked_mb"] = round(unpacked_bytes(folder) / MB, 1)
    figures["budgets_mb"] = {"unpacked": BUDGET_UNPACKED_MB, "compressed": BUDGET_COMPRESSED_MB}
    if check:
        figures["self_test"] = self_test(folder)
    (DIST / f"{store}-bundle.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in figures.items() if k != "self_test"}))
    if check:
        over = [f"{what} {figures[key]} MB > {limit} MB" for what, key, limit in (
            ("unpacked", "unpacked_mb", BUDGET_UNPACKED_MB), ("compressed", "compressed_mb", BUDGET_COMPRESSED_MB))
            if key in figures and float(figures[key]) > limit]  # type: ignore[arg-type]
        if over:
            raise BuildFailed(f"the bundle is over its size budget: {'; '.join(over)}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="demo", help="a profile of packaging/stores (default: demo)")
    parser.add_argument("--check", action="store_true", help="run the bundle's self-test and check the budgets")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    try:
        build(args.store, check=args.check)
    except BuildFailed as error:
        sys.stderr.write(f"package: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
