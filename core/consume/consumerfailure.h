// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <exception>
#include <string>

namespace ringside {

// What a consumer that threw is reported with; call inside a catch block.
inline std::string failureOfCurrentException()
{
    try {
        throw;
    } catch (const std::exception& e) {
        return e.what()[0] ? e.what() : "an exception without a message";
    } catch (...) {
        return "an exception that is not a std::exception";
    }
}

} // namespace ringside
