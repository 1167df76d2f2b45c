// SPDX-License-Identifier: GPL-2.0-or-later
// A shared module that is not a plugin: it lacks the entry points.
extern "C" __attribute__((visibility("default"))) int not_a_plugin()
{
    return 42;
}
