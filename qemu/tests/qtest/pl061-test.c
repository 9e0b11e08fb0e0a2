/*
 * QTest testcase for the PL061 GPIO controller's interrupt detection
 *
 * The virt machine wires its power button (a gpio-key) to line 3 of its
 * PL061: system_powerdown drives the line high for 100 ms of virtual time.
 * That gives a test an input pin it can move, to check that a line set to
 * level sensitivity interrupts while the pin is at its active level and
 * stops when it leaves it (GPIOIC clears edge detection only), and that an
 * edge-sensitive line latches until GPIOIC.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define GPIO_BASE       0x09030000  /* VIRT_GPIO */
#define GPIODATA        0x000       /* with address mask bits [9:2] */
#define GPIOIS          0x404
#define GPIOIBE         0x408
#define GPIOIEV         0x40c
#define GPIOIE          0x410
#define GPIORIS         0x414
#define GPIOMIS         0x418
#define GPIOIC          0x41c

#define POWER_LINE      (1 << 3)    /* the gpio-key on virt */
#define KEY_HELD_NS     (100 * 1000 * 1000)

static uint32_t gpio_readl(QTestState *qts, uint32_t reg)
{
    return qtest_readl(qts, GPIO_BASE + reg);
}

static void gpio_writel(QTestState *qts, uint32_t reg, uint32_t val)
{
    qtest_writel(qts, GPIO_BASE + reg, val);
}

static uint32_t pin(QTestState *qts)
{
    return gpio_readl(qts, GPIODATA + (POWER_LINE << 2)) & POWER_LINE;
}

/* Line 3 as an input interrupt: level or edge sensitive, active high/low */
static QTestState *setup(bool level, bool active_high)
{
    QTestState *qts = qtest_init("-machine virt -nic none");

    gpio_writel(qts, GPIOIS, level ? POWER_LINE : 0);
    gpio_writel(qts, GPIOIBE, 0);
    gpio_writel(qts, GPIOIEV, active_high ? POWER_LINE : 0);
    gpio_writel(qts, GPIOIC, POWER_LINE);
    gpio_writel(qts, GPIOIE, POWER_LINE);
    g_assert_cmpuint(pin(qts), ==, 0);
    return qts;
}

/*
 * The key goes down: the line is high until the gpio-key releases it.
 * POWERDOWN is sent in the same main loop pass that runs the machine's
 * powerdown notifier, which presses the key: once it has arrived, the pin
 * is high, and the virtual clock does not move until the test steps it.
 */
static void press(QTestState *qts)
{
    qtest_qmp_assert_success(qts, "{'execute': 'system_powerdown'}");
    qtest_qmp_eventwait(qts, "POWERDOWN");
    g_assert_cmpuint(pin(qts), ==, POWER_LINE);
}

static void release(QTestState *qts)
{
    qtest_clock_step(qts, KEY_HELD_NS + 1000);
    g_assert_cmpuint(pin(qts), ==, 0);
}

static void test_level_high(void)
{
    QTestState *qts = setup(true, true);

    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    press(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIOMIS) & POWER_LINE, ==, POWER_LINE);
    /* GPIOIC does not clear a level interrupt while the pin is active */
    gpio_writel(qts, GPIOIC, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    /* and no GPIOIC is needed once the pin has left its active level */
    release(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    g_assert_cmpuint(gpio_readl(qts, GPIOMIS) & POWER_LINE, ==, 0);
    qtest_quit(qts);
}

static void test_level_low(void)
{
    QTestState *qts = setup(true, false);

    /* the pin rests low: an active-low line is pending from the start */
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    press(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    g_assert_cmpuint(gpio_readl(qts, GPIOMIS) & POWER_LINE, ==, 0);
    release(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    qtest_quit(qts);
}

static void test_level_follows_iev(void)
{
    QTestState *qts = setup(true, true);

    press(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    /* the pin is high: making the line active-low takes the status away */
    gpio_writel(qts, GPIOIEV, 0);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    gpio_writel(qts, GPIOIEV, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    qtest_quit(qts);
}

static void test_level_to_edge(void)
{
    QTestState *qts = setup(true, true);

    press(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    /* the status came from the level: it is not an edge once switched */
    gpio_writel(qts, GPIOIS, 0);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    /* and level sensitivity again gives it back while the pin is high */
    gpio_writel(qts, GPIOIS, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    qtest_quit(qts);
}

static void test_edge_rising(void)
{
    QTestState *qts = setup(false, true);

    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    press(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    /* an edge is latched: it outlives the pin's return to low */
    release(qts);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIOMIS) & POWER_LINE, ==, POWER_LINE);
    gpio_writel(qts, GPIOIC, POWER_LINE);
    g_assert_cmpuint(gpio_readl(qts, GPIORIS) & POWER_LINE, ==, 0);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("pl061/level-high", test_level_high);
    qtest_add_func("pl061/level-low", test_level_low);
    qtest_add_func("pl061/level-follows-iev", test_level_follows_iev);
    qtest_add_func("pl061/level-to-edge", test_level_to_edge);
    qtest_add_func("pl061/edge-rising", test_edge_rising);

    return g_test_run();
}
