#!/usr/bin/env bash
# Installs everything rensa needs on Debian 12: system packages from apt and the
# project's Python virtual environment (.venv) from requirements.txt.
# Idempotent: installs only what is missing; `apt-get update` only when needed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_packages=(
    build-essential cmake ninja-build pkg-config
    libopenblas-dev libdnnl-dev
    catch2 libbenchmark-dev
    libzip-dev nlohmann-json3-dev libcli11-dev
    python3-dev python3-venv
    mpich libmpich-dev
    dataset-fashion-mnist
    clang-format clang libclang-rt-14-dev
    python3-numpy
)

missing=()
for pkg in "${apt_packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing+=("$pkg")
done

if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    echo "install-deps: system packages present"
fi

# The venv uses Debian's interpreter so that python3-dev's headers match it.
venv="$root/.venv"
stamp="$venv/.requirements.stamp"
if [ ! -x "$venv/bin/python" ]; then
    /usr/bin/python3 -m venv "$venv"
fi
# The stamp holds every requirements file pip reads: requirements.txt includes docs/requirements.txt.
requirements=$(cat "$root/requirements.txt" "$root/docs/requirements.txt")
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$requirements" ]; then
    echo "install-deps: installing Python packages into .venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/requirements.txt"
    printf '%s\n' "$requirements" >"$stamp"
else
    echo "install-deps: .venv up to date"
fi
