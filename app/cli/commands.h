// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string>
#include <vector>

namespace ringside::cli {

// Each subcommand takes its arguments (after the subcommand name) and returns the exit status.
int infoCommand(const std::vector<std::string>& args);
int dumpCommand(const std::vector<std::string>& args);
int benchCommand(const std::vector<std::string>& args);
int calltreeCommand(const std::vector<std::string>& args);
int funcstatsCommand(const std::vector<std::string>& args);
int statsCommand(const std::vector<std::string>& args);
int exportCommand(const std::vector<std::string>& args);
int kvmCommand(const std::vector<std::string>& args);
int latencyCommand(const std::vector<std::string>& args);
int recordCommand(const std::vector<std::string>& args);
int queryCommand(const std::vector<std::string>& args);

} // namespace ringside::cli
