#!/usr/bin/env bash
# Create (or reuse) a virtualenv with Apple's app-store-server-library pinned
# by requirements.txt next to this script.
#
#   usage: make_venv.sh VENV_DIR
#
# Idempotent: if VENV_DIR already has a working pip and every version pinned in
# requirements.txt installed, nothing is done. Uses $PYTHON (default python3).
# If `python3 -m venv` fails and we run as root on a Debian-like system,
# installs python3-venv with apt-get (non-interactively) and retries once.
# Exits non-zero with a message on stderr on any failure.
set -euo pipefail

prog="make_venv.sh"
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $prog VENV_DIR" >&2; exit 2; }
venv_dir="$1"
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$script_dir/requirements.txt"
python="${PYTHON:-python3}"
[ -f "$req" ] || die "requirements file not found: $req"
command -v "$python" >/dev/null 2>&1 || die "'$python' not found in PATH (set PYTHON=/path/to/python3)"

vpy="$venv_dir/bin/python"

# Succeeds when the venv has every pin of requirements.txt installed.
pins_satisfied() {
    [ -x "$vpy" ] || return 1
    "$vpy" - "$req" <<'PY' >/dev/null 2>&1
import re, sys
from importlib import metadata
def norm(n): return re.sub(r"[-_.]+", "-", n).lower()
ok = True
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(\S+)", line)
    if not m:
        sys.exit(3)  # unexpected requirement syntax: let pip handle it
    try:
        if metadata.version(norm(m.group(1))) != m.group(2):
            ok = False
    except metadata.PackageNotFoundError:
        ok = False
sys.exit(0 if ok else 1)
PY
}

venv_has_pip() {
    [ -x "$vpy" ] && "$vpy" -m pip --version >/dev/null 2>&1
}

create_venv() {
    "$python" -m venv "$venv_dir"
}

if pins_satisfied; then
    note "venv $venv_dir already has the pinned versions; nothing to do"
    exit 0
fi

if ! venv_has_pip; then
    note "creating virtualenv $venv_dir with $python"
    if ! create_venv || ! venv_has_pip; then
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            note "venv creation failed; installing Debian package python3-venv with apt-get"
            export DEBIAN_FRONTEND=noninteractive
            if ! apt-get install -y -q python3-venv >&2; then
                apt-get update -q >&2 || die "apt-get update failed"
                apt-get install -y -q python3-venv >&2 || die "apt-get install python3-venv failed"
            fi
            create_venv && venv_has_pip \
                || die "'$python -m venv $venv_dir' still fails after installing python3-venv (if $python is not Debian's /usr/bin/python3, install its venv/ensurepip support or set PYTHON)"
        else
            die "'$python -m venv $venv_dir' failed (need the venv/ensurepip module, e.g. Debian package python3-venv; run as root to have it installed automatically)"
        fi
    fi
fi

note "installing $req into $venv_dir"
"$vpy" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" \
    || die "pip install -r $req failed"

pins_satisfied || die "venv $venv_dir does not match the pins in $req after pip install"
note "ready: $vpy (app-store-server-library $("$vpy" -c 'from importlib.metadata import version; print(version("app-store-server-library"))'))"
