#!/usr/bin/env bash
# Installs Debian packages, as root or through sudo: how CI's scripts get a tool or a system
# service that is missing (valgrind, chromium, PostgreSQL).
#
#   Scripts/install-debian-package.sh PACKAGE...
set -euo pipefail
if [ "$(id -u)" -eq 0 ]; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
else
  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
fi
