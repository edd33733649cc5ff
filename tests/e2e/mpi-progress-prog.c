/*
 * mpi-progress-prog.c - pairs of ranks (r, r^1) exchange 8 bytes with MPI_Sendrecv until they
 * are killed. Each rank counts the calls that returned in DIR/progress.<rank>, a file it maps
 * shared (word 0: calls completed, word 1: its pid), so that whoever kills it knows how many
 * calls every rank finished before the kill. Usage: mpi-progress-prog DIR (an even number of
 * ranks).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile uint64_t *progress;
	char path[4096];
	uint64_t out = 0, in = 0;
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	snprintf(path, sizeof(path), "%s/progress.%d", argv[1], rank);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (progress == MAP_FAILED)
		MPI_Abort(MPI_COMM_WORLD, 1);
	progress[1] = (uint64_t)getpid();
	for (;;) {
		MPI_Sendrecv(&out, 1, MPI_UINT64_T, rank ^ 1, 0, &in, 1, MPI_UINT64_T, rank ^ 1, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		out++;
		progress[0] = out;
	}
}
