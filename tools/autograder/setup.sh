#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image: it installs what
# the kit needs and builds it, so that each submission recompiles only the lab files it brings.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends cmake ninja-build g++ catch2 libboost-context-dev nlohmann-json3-dev \
  python3 python3-pip ca-certificates

cmake_new_enough() {
  local version
  version=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+' | head -1)
  [[ $(printf '%s\n3.25\n' "$version" | sort -V | head -1) == 3.25 ]]
}
# Ubuntu 22.04 ships CMake 3.22; the kit needs 3.25 (Ubuntu 24.04 ships 3.28).
if ! cmake_new_enough; then
  python3 -m pip install --upgrade 'cmake>=3.25'
  hash -r
fi
cmake_new_enough || { echo "CMake 3.25 or newer could not be installed." >&2; exit 1; }

chmod +x run_autograder kit/lab kit/tools/*
# Grading the stubs once builds the emulator, the grader and every lab module.
(cd kit && ./lab grade --emu >/dev/null 2>&1) || true
test -x kit/build/grade-emu/labgrader || { echo "The kit did not build: kit/build/grade-emu.build.log says why." >&2; exit 1; }
