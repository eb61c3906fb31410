import { Avatar, Burger, Group, Menu, Text, UnstyledButton } from "@mantine/core";
import { PRODUCT_NAME } from "@polyforge/contracts/organizations";
import { IconChevronDown, IconHexagons, IconLogout, IconUser } from "@tabler/icons-react";
import { Link } from "@tanstack/react-router";
import { useTranslation } from "react-i18next";
import { initials } from "../../lib/auth/identity";
import { signOut } from "../../lib/auth/session";
import { useIdentity } from "../../lib/auth/useIdentity";

export function Header({ navbarOpened, onToggleNavbar }: { navbarOpened: boolean; onToggleNavbar: () => void }) {
  const { t } = useTranslation();
  const identity = useIdentity();
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger opened={navbarOpened} onClick={onToggleNavbar} hiddenFrom="sm" size="sm" aria-label={t("nav.toggle")} />
        <UnstyledButton component={Link} to="/">
          <Group gap={6} wrap="nowrap">
            <IconHexagons size={28} color="var(--mantine-color-blue-6)" aria-hidden />
            <Text fw={700} size="lg">
              {PRODUCT_NAME}
            </Text>
          </Group>
        </UnstyledButton>
      </Group>
      <Menu position="bottom-end" width={200} withinPortal>
        <Menu.Target>
          <UnstyledButton aria-label={t("header.userMenu")}>
            <Group gap="xs" wrap="nowrap">
              <Text size="sm" fw={500} visibleFrom="xs">
                {identity.givenName}
              </Text>
              <Avatar color="blue" radius="xl" size="md">
                {initials(identity)}
              </Avatar>
              <IconChevronDown size={14} aria-hidden />
            </Group>
          </UnstyledButton>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{identity.email}</Menu.Label>
          <Menu.Item component={Link} to="/account" leftSection={<IconUser size={16} />}>
            {t("header.account")}
          </Menu.Item>
          <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => void signOut()}>
            {t("header.logOut")}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}
