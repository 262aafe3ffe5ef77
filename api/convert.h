// SPDX-License-Identifier: Apache-2.0
// The library's public values (include/proctape/types.h) to and from the
// layers' own: the core's plain structs, the schema's messages, the format's
// errors. Internal: not installed.
#pragma once

#include <string>

#include "core/resolver.h"
#include "core/verdict.h"
#include "format/format_error.h"
#include "proctape.pb.h"
#include "proctape/types.h"

namespace proctape::api::detail {

Verdict FromCore(const proctape::Verdict& verdict);
LivenessVerdict FromCore(const proctape::LivenessVerdict& verdict);
Fingerprint FromProto(const v1::RootFingerprint& fingerprint);
v1::RootFingerprint ToProto(const Fingerprint& fingerprint);
// The request's search (token, argv, bounds); root and exe come from the
// fingerprint (ApplyFingerprint).
proctape::Request ToCore(const Request& request);
// kNone stays kNone; each format damage its own code.
Error FromFormat(const FormatError& error);
// Error{code, message}.
Error Fail(ErrorCode code, std::string message);

}  // namespace proctape::api::detail
