/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor's report on the probed kernel features (kfeatures.h), with the
 * advice due on this machine. Library code: writes only to out.
 */
#ifndef RS_DOCTOR_OUT_H
#define RS_DOCTOR_OUT_H

#include <stdio.h>

struct kfeatures;

/* The text report, 80 columns, hints under the items they concern. */
void doctor_out__text(FILE *out, const struct kfeatures *kf);
/* The same as one JSON object, the hints listed by feature: 0, -ENOMEM. */
int doctor_out__json(FILE *out, const struct kfeatures *kf);

#endif
