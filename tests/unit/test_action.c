/* tests/unit/test_action.c — placeholder replaced below */
int main(void) { return 0; }
