#!/bin/sh
# The version a user reads must be the one the headers define: the README's "Status:"
# line and the CHANGELOG's newest entry both name EDGEATTN_VERSION_STRING
# (include/edgeattn/common.h). Run by `make lint`; README's status said 0.17.0 for three
# releases before this check.
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define EDGEATTN_VERSION_STRING "\(.*\)"/\1/p' include/edgeattn/common.h)
status=0
if ! grep -q "^Status: version $version," README.md; then
  echo "check_version_text: README.md's 'Status: version ...,' line does not name $version" >&2
  status=1
fi
newest=$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' CHANGELOG.md | head -n 1)
if [ "$newest" != "$version" ]; then
  echo "check_version_text: CHANGELOG.md's newest entry is '$newest', not $version" >&2
  status=1
fi
exit "$status"
