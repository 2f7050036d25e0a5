// Operator packages: manifests, discovery by priority, binary matching and checksums.
// docs/runtime_packages.md is the user guide.
#pragma once

#include "tessera/runtime/package_checksum.h"
#include "tessera/runtime/package_manifest.h"
#include "tessera/runtime/package_match.h"
#include "tessera/runtime/package_search.h"
