/*
 * omp-regions-prog.c - many short parallel regions, each with a worksharing loop: the
 * records of their barriers cross many chunk boundaries of a small --buffer-size
 * (tests/e2e/test_omp_chunk_edge.sh).
 *
 *     omp-regions-prog [REGIONS]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 20000;
	double sum = 0;

	for (int r = 0; r < regions; r++) {
#pragma omp parallel for reduction(+ : sum)
		for (int i = 0; i < 64; i++)
			sum += (double)(i + r);
	}
	printf("regions %d sum %.0f\n", regions, sum);
	return 0;
}
