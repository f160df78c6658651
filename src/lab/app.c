/* boinc-audit's lab application: a BOINC task that lasts the number of
 * seconds its input file ("in", downloaded from the lab's project server)
 * or its command line gives, reports its progress through the
 * BOINC API once a second, and finishes with boinc_finish(0). It sleeps
 * rather than spins, so a lab run does not load the machine it runs on;
 * the client schedules by elapsed time either way.
 *
 * Built by `boinc-audit lab` with the system's boinc-dev:
 *   cc app.c -I/usr/include/boinc -lboinc_api -lboinc -lpthread -lstdc++
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "boinc_api.h"

/* Monotonic seconds. The BOINC API's timer signal interrupts sleeps, so
 * the task measures its length by the clock, not by the sleeps it asked for. */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    double secs = 30, last, done = 0;
    int i;
    for (i = 1; i < argc; i++) {
        double x = atof(argv[i]);
        if (x > 0) secs = x;
    }
    boinc_init();
    {
        char path[1024];
        FILE* f;
        double x = 0;
        if (boinc_resolve_filename("in", path, sizeof(path)) == 0
            && (f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%lf", &x) == 1 && x > 0) secs = x;
            fclose(f);
        }
    }
    /* A restarted task starts over: the lab's jobs are short. A gap of
     * more than a second between two turns is a suspension (the API stops
     * the worker while the client has the task suspended): it does not
     * count. */
    last = now();
    while (done < secs) {
        double t, step;
        usleep(200000);
        t = now();
        step = t - last;
        last = t;
        done += step > 1.0 ? 0.2 : step;
        boinc_fraction_done(done < secs ? done / secs : 1.0);
    }
    boinc_finish(0);
    return 0;
}
