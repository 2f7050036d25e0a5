// Operator packages, internal to the runtime and its tools: manifests, discovery by priority,
// binary matching and checksums. Not installed.
#pragma once

#include "runtime/package/package_checksum.h"
#include "runtime/package/package_manifest.h"
#include "runtime/package/package_match.h"
#include "runtime/package/package_search.h"
