/*
 * record-omp.h - OpenMP under `perfscope record`: whether the command uses an OpenMP runtime,
 * so that record preloads libperfscope.so, whose libgomp wrappers and OMPT tool write the
 * OpenMP records (src/omp-rt), even when nothing else needs it.
 */
#ifndef PSC_RECORD_OMP_H
#define PSC_RECORD_OMP_H

/* 1 when the command CMD (NULL-terminated) runs a program linked with an OpenMP runtime
 * (libgomp, libomp, libiomp5): CMD[0], or a later argument that is not an option and resolves
 * to an executable, as `mpirun -np 4 ./app` runs ./app. Else 0. */
int record_omp_cmd(char *const *cmd);

#endif /* PSC_RECORD_OMP_H */
