/*
 * record-mpi.h - the MPI side of `perfscope record`: record --mpi, and record run as an MPI
 * rank (`mpirun -np N perfscope record -- APP`), where every rank's record shares DIR: rank 0
 * prepares it and writes meta.json (with the job id and the run's nonce), the others wait for
 * it. Prints its messages.
 */
#ifndef PSC_RECORD_MPI_H
#define PSC_RECORD_MPI_H

#include <stddef.h>
#include <time.h>

/* The MPI implementations perfscope has wrappers for. */
enum record_mpi_impl {
	RECORD_MPI_UNKNOWN,
	RECORD_MPI_OPENMPI, /* libmpi.so.40: libperfscope-mpi.so */
	RECORD_MPI_MPICH,   /* libmpich.so.12: libperfscope-mpich.so */
};

/* What record knows of the MPI run it belongs to. */
struct record_mpi {
	int on;		 /* --mpi: libperfscope-mpi.so preloaded, "mpi": true */
	int rank;	 /* this record's MPI rank from the launcher's environment, -1 if none */
	const char *job; /* the MPI job's id from the environment, NULL when unknown */
	const char *run; /* this run's nonce (PSC_ENV_MPI_RUN), NULL when none */
	char run_buf[48];
	time_t run_start; /* the launch time in a launcher's nonce ("HEX-EPOCH"), 0 when none */
};

#define MPI_DIR_WAIT_MS	 30000 /* how long a rank waits for rank 0's meta.json */
#define MPI_META_SLACK_S 10    /* how much older than the launch or the rank's start it may be */

/* This process's MPI rank from the environment that MPI launchers set (Open MPI, PMIx
 * launchers such as Slurm, MPICH's Hydra and Intel MPI), or -1. */
int record_mpi_env_rank(void);

/* The MPI job's id, the same in every rank: PMIx's namespace, Open MPI's job id, or Slurm's
 * job and step. NULL when the launcher gives none. */
const char *record_mpi_env_job(void);

/* This run's nonce: a rank's from its launcher (NULL when none); a launcher's fresh, random
 * and with its start time ("HEX-EPOCH"). -EINVAL when the environment's is not one. */
int record_mpi_run_id(struct record_mpi *mpi);

/* A rank other than 0: wait until rank 0 has made DIR an experiment of this job. */
int record_mpi_wait_dir(const char *dir, const struct record_mpi *mpi);

/* The first nonzero MATCH(name) of the NEEDED entries of the ELF file at PATH; 0 when none
 * matches or PATH is no ELF file. */
int record_elf_needed(const char *path, int (*match)(const char *needed));

/* ARG as a launcher would run it: a path when it has a '/', else the first executable of that
 * name in PATH. 0 when it is an executable regular file, into BUF; else -1. */
int record_cmd_path(const char *arg, char *buf, size_t len);

/* The MPI the ELF file at PATH is linked with, by its NEEDED entries (libmpi.so.40 and
 * Open MPI's binding libraries libmpi_*; libmpich*); RECORD_MPI_UNKNOWN when none names an
 * MPI or PATH is no ELF file. */
enum record_mpi_impl record_mpi_elf_impl(const char *path);

/* The MPI of the command CMD (NULL-terminated): of the first of CMD[0] and its later
 * arguments that are not options and resolve (as a path, or in PATH) to an executable linked
 * with an MPI, as `mpirun -np 4 ./app` runs ./app; else of the launcher CMD[0] by its real
 * name (orterun: Open MPI, mpiexec.hydra: MPICH). *PROG is the argument that told, NULL when
 * none did. */
enum record_mpi_impl record_mpi_cmd_impl(char *const *cmd, const char **prog);

/* ":" and the path of the MPI wrapper library for CMD into MPILIB, next to the runtime LIB:
 * libperfscope-mpi.so.0 for Open MPI, libperfscope-mpich.so.0 for MPICH, as PSC_ENV_MPI_IMPL
 * says or else record_mpi_cmd_impl finds (Open MPI's, with a warning, when it finds none).
 * 0, -EINVAL for a bad PSC_ENV_MPI_IMPL, -ENOENT when the library was not built; prints why. */
int record_mpi_library(const char *lib, char *const *cmd, char *mpilib, size_t len);

/* Record --mpi as the launcher, once its environment is set: have mpirun give perfscope's
 * variables (PERFSCOPE_*, LD_PRELOAD, the sanitizers' options) to ranks on every host, which
 * Open MPI's remote launch (ssh, a batch system) does not do by itself. When CMD runs Open
 * MPI's mpirun, *ARGV becomes the command to run instead: CMD with "-x NAME" for each after
 * mpirun and after every ':' (the MPMD contexts), one block the caller frees; otherwise *ARGV
 * is NULL and (a script, another launcher) their names go into OMPI_MCA_mca_base_env_list,
 * unless the command has a -x, which Open MPI will not mix with it. MPICH's Hydra forwards
 * the whole environment by itself. 0 or a negative errno (-E2BIG: too many to forward). */
int record_mpi_forward_env(char *const *cmd, char ***argv);

#endif /* PSC_RECORD_MPI_H */
