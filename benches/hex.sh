#!/usr/bin/env bash
# Times rules/hex.rules on its small and large sets: see benches/connection.sh.
# Usage: benches/hex.sh [RUNS]
exec "$(dirname "$0")/connection.sh" hex "$@"
