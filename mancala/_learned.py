"""The weights of the learned evaluation (``evaluation="learned"``).

The learned evaluation is the store difference plus a guess of what the rest
of the game adds to it: a weighted sum of terms, fitted by least squares to
the exact values (perfect play to the end) of positions from Kalah(6,4)
games, by ``bench/fit_evaluation.py``. Its terms, each from the mover's view:

    a constant (the right to move)
    the seeds in each of the mover's six pits, from its left
    the seeds in each of the opponent's six pits, from their left
    the mover's moves that end in its store, its best capture, its empty pits
    the same three of the opponent's

and, from two tables (a row per pit: the mover's six, then the opponent's,
each from its owner's left), what each pit adds for the seeds it holds: a
column for 0 to 11 seeds, the last for 12 or more. The tables let a pit's
worth depend on its count the way a weight cannot: a pit one seed short of
its store, or one holding 13 (a lap that ends where it began), is not simply
worth its seeds.

Two sets of weights blend by the share of all seeds still in the pits
(tapered): MIDGAME when every seed is in a pit, ENDGAME when none are. The
weights are in 64ths of a seed; the blended sum is rounded to whole seeds
(halves away from zero) and kept within the seeds in the pits, as the final
margin is. The core (mancala/_core_rules.pxi) and the twin
(mancala/_reference.py) both read them from here.
"""
SCALE = 64
COUNTS = 13         # the tables' columns: 0..11 seeds, then 12 or more

# fitted to 10,225 positions (bench/fit_evaluation.py); the root mean square
# error of the guess, in seeds: 8.47 for the store difference alone, 8.15 with
# the positional terms, 4.31 with these (fitted without 2,588 of them: 4.59 on
# those, against 5.95 for this evaluation's weights without the tables)
#          const  mover's pits 1..6 from its left  opponent's pits 1..6
#                 extra-turn moves, best capture, empty pits: the mover's, the opponent's
MIDGAME = (2, -35, -52, -19, 10, 20, 55, 39, 64, 29, 6, -25, -53, 286, 16, -74, -95, 3, 53)
MIDGAME_TABLE = (
    (-286, -82, 18, 55, 293, 357, -7, -15, -125, -105, -102, 0, 0),
    (-306, -29, 128, 220, 203, 63, -81, -6, -124, -54, -64, 44, 7),
    (-150, 85, 157, 155, 79, -146, -47, -135, -99, -41, -57, 94, 106),
    (90, 163, 201, 83, -170, -118, -182, -162, -190, -86, 78, 19, 274),
    (214, 158, 69, -139, -64, -143, -170, -189, -76, -23, 57, 135, 173),
    (363, 110, -135, -163, -164, -119, -74, -60, -4, -15, 44, 88, 130),
    (196, 78, 3, -46, -240, -296, 65, 6, 77, 94, 63, 0, 0),
    (270, 59, -141, -241, -233, 113, 10, 52, 38, 25, 99, -31, -20),
    (128, -78, -189, -279, 67, 155, 159, 42, 113, 77, 135, -103, -225),
    (-65, -203, -278, -105, 179, 200, 138, 176, 160, 162, -15, -93, -256),
    (-188, -255, -101, 109, 202, 148, 195, 186, 113, -16, -35, -179, -177),
    (-287, -173, 49, 164, 208, 123, 195, 3, -47, 16, -70, -125, -54),
)
ENDGAME = (-18, 47, 72, 47, 44, 34, 33, -22, -74, -46, -51, -18, -20, 79, 93, -38, -98, -40, 37)
ENDGAME_TABLE = (
    (-96, -29, 15, 47, -78, 28, 247, 11, -56, -39, -68, 0, 0),
    (-17, -17, -26, 3, 76, 45, 0, -106, -46, 17, 27, 20, 5),
    (-10, 14, 55, 88, 1, 91, -100, -54, -129, -174, -113, 108, 206),
    (13, 47, 94, -18, 41, 108, -46, -170, -162, -241, -77, 122, 271),
    (41, 108, -17, 31, -36, -10, -120, -147, -85, 104, -51, 79, 84),
    (31, -46, 131, 98, -26, -86, -242, 0, -12, 3, -33, 53, 110),
    (92, 36, -22, -72, 29, -179, -35, -15, 74, 31, 43, 0, 0),
    (-15, -10, 10, 33, -22, -74, 79, -5, 9, -14, -16, 18, -12),
    (14, -16, -35, -26, -75, -127, 23, 62, 142, 203, 60, -22, -223),
    (-15, -47, -52, 3, -81, -98, 61, 36, 186, 151, 55, 49, -266),
    (-22, -53, -13, -90, -47, -52, 137, 185, 55, 9, 16, -46, -98),
    (-18, 51, -122, -142, -24, -4, 226, 106, 60, -22, 21, -31, -119),
)
