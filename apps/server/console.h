// SPDX-License-Identifier: Apache-2.0
//
// The web console (docs/console.md) served by `neardup serve`: GET / is the
// page, GET /console/<file> its scripts and styles, all compiled into the
// binary (console_assets.h). They hold no data, so they need no token; the
// page asks for the token and sends it with every API call.
//
// Security headers on every response of the server: the console's pages get
// a Content-Security-Policy that allows only same-origin scripts, styles
// and connections (no inline script, no eval, no frames); every other
// response gets `default-src 'none'`, and all get nosniff, no-referrer and
// DENY framing.
//
// Thread safety: call once while setting the server up.
#ifndef NEARDUP_APPS_SERVER_CONSOLE_H_
#define NEARDUP_APPS_SERVER_CONSOLE_H_

#include "server/http_message.h"
#include "server/router.h"

namespace neardup::server {

// The policy of the console's pages.
inline constexpr char kConsoleCsp[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// The policy of everything else (JSON, metrics, errors).
inline constexpr char kApiCsp[] = "default-src 'none'; frame-ancestors 'none'";

// Adds the console's routes to `router` (route name "console").
void RegisterConsole(Router& router);
// Gives `res` the security headers it does not have yet: a console page
// sets its own policy, every other answer gets kApiCsp.
void AddSecurityHeaders(Response& res);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_CONSOLE_H_
