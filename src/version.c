// SPDX-License-Identifier: GPL-2.0
/*
 * The build's versions, from build/version.h. Only this file includes it,
 * so a new commit recompiles one object, and every string that names the
 * tool (--version, the perf.data VERSION feature, bench results) is the
 * same one.
 */
#include "util.h"
#include "version.h"	/* generated: build/version.h */

const char *rs_version(void)
{
	return RS_BUILD_VERSION;
}

const char *rs_library_versions(void)
{
	return "libtraceevent " RS_TRACEEVENT_VERSION
	       ", libtracefs " RS_TRACEFS_VERSION
	       ", elfutils " RS_ELFUTILS_VERSION;
}
